package ax.logging;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LineFormatterTest {
  private static final String NL = System.lineSeparator();
  private final LineFormatter formatter = new LineFormatter();

  private static LogRecord record(Level level, String logger, String message, Object... params) {
    LogRecord r = new LogRecord(level, message);
    r.setLoggerName(logger);
    r.setInstant(Instant.parse("2026-12-01T04:57:58.123456Z"));
    r.setParameters(params.length == 0 ? null : params);
    return r;
  }

  @Test
  void aRecordIsOneLineOfUtcTimeLevelLoggerShortNameAndMessage() {
    assertEquals("2026-12-01T04:57:58.123Z INFO    AxNode: serving on port 8080" + NL,
        formatter.format(record(Level.INFO, "ax.node.AxNode", "serving on port 8080")));
    assertEquals("2026-12-01T04:57:58.123Z WARNING Database: late" + NL,
        formatter.format(record(Level.WARNING, "ax.store.Database", "late")));
    assertEquals("2026-12-01T04:57:58.123Z SEVERE  root: no logger name" + NL,
        formatter.format(record(Level.SEVERE, null, "no logger name")));
  }

  @Test
  void parametersAreFilledIn() {
    assertEquals("2026-12-01T04:57:58.123Z INFO    LeaderVerticle: became leader, epoch 3" + NL,
        formatter.format(record(Level.INFO, "ax.verticles.LeaderVerticle", "became leader, epoch {0}", 3)));
  }

  @Test
  void aThrowableFollowsTheLineAsItsStackTrace() {
    LogRecord r = record(Level.SEVERE, "ax.dispatch.CompletionWriter", "write failed");
    r.setThrown(new IllegalStateException("boom", new java.io.IOException("disk")));

    String[] lines = formatter.format(r).split(NL);

    assertEquals("2026-12-01T04:57:58.123Z SEVERE  CompletionWriter: write failed", lines[0]);
    assertEquals("java.lang.IllegalStateException: boom", lines[1]);
    assertTrue(lines[2].startsWith("\tat ax.logging.LineFormatterTest."), lines[2]);
    assertTrue(String.join("\n", lines).contains("Caused by: java.io.IOException: disk"));
  }
}
