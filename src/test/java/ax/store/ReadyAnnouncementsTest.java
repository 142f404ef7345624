package ax.store;

import ax.wheel.ScheduledTask;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadyAnnouncementsTest {

  @Test
  void anAnnouncementListsIdTriggerAndPriority() {
    assertEquals(List.of(new ScheduledTask(7, 1_764_000_000_123L, 5), new ScheduledTask(8, 1_764_000_001_000L, 9)),
        ReadyAnnouncements.parse("7:1764000000123:5,8:1764000001000:9"));
    assertEquals(List.of(), ReadyAnnouncements.parse(""));
  }

  @Test
  void anythingElseIsRefusedNamingTheEntry() {
    for (String bad : new String[] {"7:1", "x:1:5", "7:1:10", ",7:1:5", "7:1:5:0"}) {
      assertThrows(IllegalArgumentException.class, () -> ReadyAnnouncements.parse(bad), bad);
    }
  }

  @Test
  void aSkippedCountThatCannotBeReadCountsNothing() {
    assertEquals(3, ReadyAnnouncements.skippedCount("3"));
    assertEquals(0, ReadyAnnouncements.skippedCount("three"));
    assertEquals(0, ReadyAnnouncements.skippedCount("-2"));
  }
}
