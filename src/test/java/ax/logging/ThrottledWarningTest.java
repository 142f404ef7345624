package ax.logging;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class ThrottledWarningTest {
  @Test
  void aFailureRepeatedWithinTheIntervalIsLoggedOnceWithItsCause() {
    Logger logger = Logger.getLogger("ax.logging.ThrottledWarningTest");
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        records.add(r);
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    logger.addHandler(capture);
    logger.setUseParentHandlers(false);
    try {
      ThrottledWarning warning = new ThrottledWarning(logger, 60_000);
      IllegalStateException cause = new IllegalStateException("connection refused");
      for (int i = 0; i < 1_000; i++) {
        warning.log("claiming failed", cause);
      }
      assertEquals(1, records.size(), "one line for 1 000 failures within the interval");
      assertEquals("claiming failed", records.get(0).getMessage());
      assertSame(cause, records.get(0).getThrown());
    } finally {
      logger.removeHandler(capture);
      logger.setUseParentHandlers(true);
    }
  }
}
