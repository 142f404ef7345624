package ax.api;

import ax.store.TaskStore;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ListCursorTest {

  @Test
  void aCursorComesBackAsThePositionItWasMadeFromToTheMicrosecond() throws Exception {
    OffsetDateTime createdAt = OffsetDateTime.of(2025, 11, 30, 0, 0, 5, 123_456_000, ZoneOffset.UTC);
    ListCursor c = new ListCursor(createdAt.toEpochSecond() * 1_000_000L + 123_456, 7393824110912345678L);
    ListCursor back = ListCursor.decode(c.encode());
    assertEquals(c, back);
    assertEquals(new TaskStore.ListPosition(createdAt, 7393824110912345678L), back.position());
  }

  @Test
  void aCursorIsUrlSafeAndNotATaskId() {
    String text = new ListCursor(1_764_460_805_123_456L, 42).encode();
    assertTrue(text.matches("[A-Za-z0-9_-]+"), text);
    assertFalse(text.contains("42"), text);
  }

  @Test
  void positionsBeforeTheEpochSurviveTheRoundTrip() throws Exception {
    ListCursor c = new ListCursor(-1_500_001L, 1);
    assertEquals(OffsetDateTime.of(1969, 12, 31, 23, 59, 58, 499_999_000, ZoneOffset.UTC),
        ListCursor.decode(c.encode()).position().createdAt());
  }

  @Test
  void anythingTheServerDidNotIssueIsAValidationFailureNamingTheCursor() {
    byte[] wrongVersion = Base64.getUrlDecoder().decode(new ListCursor(1, 2).encode());
    wrongVersion[0] = 9;
    byte[] noTask = Base64.getUrlDecoder().decode(new ListCursor(1, 2).encode());
    java.util.Arrays.fill(noTask, 9, 17, (byte) 0);
    for (String bad : List.of("", "garbage!", "AAAA", "7393824110912345678", "A".repeat(200),
        new ListCursor(1, 2).encode() + "AA", Base64.getUrlEncoder().encodeToString(wrongVersion),
        Base64.getUrlEncoder().withoutPadding().encodeToString(noTask))) {
      InvalidRequest e = assertThrows(InvalidRequest.class, () -> ListCursor.decode(bad), bad);
      assertEquals("validation_failed", e.problem().code());
      assertTrue(e.problem().detail().startsWith("cursor: "), e.problem().detail());
    }
  }
}
