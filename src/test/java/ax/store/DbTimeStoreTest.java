package ax.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DbTimeStoreTest {
  private static StoreFixture db;

  @BeforeAll
  static void start() {
    db = new StoreFixture();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void theDatabaseClockIsReadBelowTheMillisecond() {
    DbTimeStore time = new DbTimeStore(db.pool);
    boolean subMillisecond = false;
    long previous = Long.MIN_VALUE;
    for (int i = 0; i < 5; i++) {
      long micros = time.nowMicros().await();
      assertTrue(micros >= previous, "clock_timestamp() went backwards: " + previous + " then " + micros);
      previous = micros;
      subMillisecond |= micros % 1_000 != 0;
    }
    // five readings all on a whole millisecond would mean the reading is truncated somewhere (p < 1e-14)
    assertTrue(subMillisecond, "five readings, every one a whole millisecond: " + previous);
    long millis = time.nowMillis().await();
    assertTrue(millis >= previous / 1_000 && millis - previous / 1_000 < 60_000, "millis " + millis + " vs micros " + previous);
  }
}
