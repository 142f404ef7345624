package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DedupeWindowTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  private final DedupeWindow<String> window = new DedupeWindow<>(clock, Duration.ofMinutes(5), 1_000);
  private final DedupeKey key = new DedupeKey("7421394872192303104", 1, 0);

  @Test
  void aNewKeyStartsAndItsRepeatDoesNot() {
    assertTrue(window.tryStart(key));
    assertFalse(window.tryStart(key));
    assertTrue(window.contains(key));
  }

  @Test
  void anotherAttemptOrShardIsADifferentExecution() {
    window.tryStart(key);

    assertTrue(window.tryStart(new DedupeKey(key.taskId(), 2, 0)));
    assertTrue(window.tryStart(new DedupeKey(key.taskId(), 1, 1)));
  }

  @Test
  void theOutcomeIsKnownOnlyOnceTheRunCompleted() {
    window.tryStart(key);
    assertEquals(Optional.empty(), window.outcome(key));

    window.complete(key, "done");

    assertEquals(Optional.of("done"), window.outcome(key));
    assertFalse(window.tryStart(key));
  }

  @Test
  void keysExpireAfterTheTtl() {
    window.tryStart(key);
    clock.advance(Duration.ofMinutes(5).minusMillis(1));
    assertTrue(window.contains(key));

    clock.advance(Duration.ofMillis(1));

    assertFalse(window.contains(key));
    assertTrue(window.tryStart(key));
  }

  @Test
  void completingRestartsTheTtl() {
    window.tryStart(key);
    clock.advance(Duration.ofMinutes(4));
    window.complete(key, "done");
    clock.advance(Duration.ofMinutes(4));

    assertEquals(Optional.of("done"), window.outcome(key));
  }

  @Test
  void expiryKeepsYoungerEntriesBehindAnExpiredOne() {
    window.tryStart(key);
    clock.advance(Duration.ofMinutes(3));
    DedupeKey younger = new DedupeKey("2", 1, 0);
    window.tryStart(younger);
    clock.advance(Duration.ofMinutes(3));

    assertFalse(window.contains(key));
    assertTrue(window.contains(younger));
    assertEquals(1, window.size());
  }

  @Test
  void theWindowIsBoundedByDroppingTheOldest() {
    DedupeWindow<String> small = new DedupeWindow<>(clock, Duration.ofMinutes(5), 2);
    small.tryStart(new DedupeKey("1", 1, 0));
    small.tryStart(new DedupeKey("2", 1, 0));
    small.tryStart(new DedupeKey("3", 1, 0));

    assertEquals(2, small.size());
    assertFalse(small.contains(new DedupeKey("1", 1, 0)));
    assertTrue(small.contains(new DedupeKey("3", 1, 0)));
  }

  @Test
  void nonsenseSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new DedupeWindow<>(clock, Duration.ZERO, 10));
    assertThrows(IllegalArgumentException.class, () -> new DedupeWindow<>(clock, Duration.ofMinutes(1), 0));
  }
}
