package ax.logging;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonLineFormatterTest {
  private final JsonLineFormatter formatter = new JsonLineFormatter();

  private static LogRecord record(String message) {
    LogRecord r = new LogRecord(Level.INFO, message);
    r.setLoggerName("ax.node.AxNode");
    r.setInstant(Instant.parse("2026-12-01T04:57:58.123456Z"));
    return r;
  }

  /** Exactly one line, ended by a newline, that is one JSON object. */
  private JsonObject oneObject(LogRecord r) {
    String line = formatter.format(r);
    assertTrue(line.endsWith("\n"), line);
    assertEquals(line.length() - 1, line.indexOf('\n'), "one line: " + line);
    return new JsonObject(line);
  }

  @Test
  void aRecordIsOneObjectWithTimeLevelLoggerMessageAndThread() {
    JsonObject o = oneObject(record("serving on port 8080"));

    assertEquals(new JsonObject().put("time", "2026-12-01T04:57:58.123Z").put("level", "INFO")
        .put("logger", "ax.node.AxNode").put("message", "serving on port 8080")
        .put("thread", Thread.currentThread().getName()), o);
  }

  @Test
  void anyMessageStaysOneStringOnOneLine() {
    String nasty = "two\nlines\r\n\t\"quoted\" back\\slash \u0001\u001f nul\u0000 é 🎉 lone\ud800 low\udc00 end";

    JsonObject o = oneObject(record(nasty));

    assertEquals(nasty, o.getString("message"));
  }

  @Test
  void aThrowableIsTheErrorFieldAndOnlyThen() {
    LogRecord r = record("write failed");
    r.setThrown(new IllegalStateException("boom"));

    JsonObject o = oneObject(r);

    assertTrue(o.getString("error").startsWith("java.lang.IllegalStateException: boom\n\tat "), o.getString("error"));
    assertEquals(Set.of("time", "level", "logger", "message", "thread", "error"), o.fieldNames());
    assertFalse(oneObject(record("fine")).containsKey("error"));
  }

  @Test
  void aRecordFormattedOffItsThreadNamesTheThreadById() {
    LogRecord r = record("elsewhere");
    r.setLongThreadID(Thread.currentThread().getId() + 1_000_003);

    assertEquals("thread-" + (Thread.currentThread().getId() + 1_000_003), oneObject(r).getString("thread"));
  }
}
