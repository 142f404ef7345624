package ax.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.ratelimit.TokenBucket.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenBucketTest {

  private static final long T0 = 1_000_000_000_000L;
  private static final long MS = 1_000_000L;

  private static int allowedCount(TokenBucket bucket, long nowNanos, int attempts) {
    int allowed = 0;
    for (int i = 0; i < attempts; i++) {
      if (bucket.tryTake(nowNanos).allowed()) {
        allowed++;
      }
    }
    return allowed;
  }

  @Test
  void newBucketIsFullAndAllowsItsBurstAtOnce() {
    TokenBucket bucket = new TokenBucket(1, 5, T0);

    assertEquals(5, allowedCount(bucket, T0, 10));
  }

  @Test
  void allowedRequestHasNoRetryAfter() {
    assertEquals(new Decision(true, 0), new TokenBucket(1, 1, T0).tryTake(T0));
  }

  @Test
  void refusedRequestIsToldHowLongUntilTheNextToken() {
    TokenBucket bucket = new TokenBucket(2, 1, T0);
    bucket.tryTake(T0);

    assertEquals(new Decision(false, 500), bucket.tryTake(T0));
    assertEquals(new Decision(false, 250), bucket.tryTake(T0 + 250 * MS));
    assertTrue(bucket.tryTake(T0 + 500 * MS).allowed());
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.5, 1, 3, 7, 20, 1_000, 123_456.7})
  void waitingTheAnnouncedRetryAfterIsAlwaysEnough(double rate) {
    TokenBucket bucket = new TokenBucket(rate, 1, T0);
    long now = T0;
    for (int round = 0; round < 50; round++) {
      Decision allowed = bucket.tryTake(now);
      assertTrue(allowed.allowed(), "round " + round);
      Decision refused = bucket.tryTake(now);
      assertFalse(refused.allowed());
      assertTrue(refused.retryAfterMillis() >= 1);
      now += refused.retryAfterMillis() * MS;
    }
  }

  @Test
  void idleTimeNeverFillsTheBucketBeyondItsBurst() {
    TokenBucket bucket = new TokenBucket(100, 3, T0);
    allowedCount(bucket, T0, 3);

    assertEquals(3, allowedCount(bucket, T0 + 3_600_000 * MS, 100));
  }

  @Test
  void sustainedTrafficIsHeldToTheRate() {
    TokenBucket bucket = new TokenBucket(10, 10, T0);
    int allowed = 0;
    for (long ms = 0; ms < 10_000; ms++) {
      allowed += allowedCount(bucket, T0 + ms * MS, 5);
    }

    assertTrue(allowed >= 109 && allowed <= 110, "allowed " + allowed);
  }

  @Test
  void clockGoingBackwardsAddsNoTokens() {
    TokenBucket bucket = new TokenBucket(1, 1, T0);
    bucket.tryTake(T0);

    assertFalse(bucket.tryTake(T0 - 10_000 * MS).allowed());
    assertFalse(bucket.tryTake(T0 + 500 * MS).allowed());
    assertTrue(bucket.tryTake(T0 + 1_000 * MS).allowed());
  }

  @Test
  void refillSurvivesTheNanosecondCounterWrappingAround() {
    long beforeWrap = Long.MAX_VALUE - 100;
    TokenBucket bucket = new TokenBucket(1, 1, beforeWrap);
    bucket.tryTake(beforeWrap);

    assertTrue(bucket.tryTake(beforeWrap + 1_000 * MS).allowed());
  }

  @Test
  void concurrentCallersNeverGetMoreThanTheBurst() throws InterruptedException {
    TokenBucket bucket = new TokenBucket(0.001, 1_000, T0);
    AtomicInteger allowed = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        allowed.addAndGet(allowedCount(bucket, T0, 5_000));
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }

    assertEquals(1_000, allowed.get());
  }

  @Test
  void rateAndBurstThatCouldNeverAdmitARequestAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1, T0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(-1, 1, T0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(Double.NaN, 1, T0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, 0.5, T0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, Double.POSITIVE_INFINITY, T0));
  }
}
