package ax.logging;

import ax.json.JsonStrings;

import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * {@code AX_LOG_FORMAT=json}: one JSON object per line, for log collectors:
 * {@code {"time":"2026-12-01T04:57:58.123Z","level":"INFO","logger":"ax.node.AxNode","message":"…","thread":"main"}}
 * plus {@code "error"} (the stack trace) when the record carries a throwable. The message is written
 * as one string whatever it contains (newlines, quotes, control characters, unpaired surrogates), so a
 * record is always exactly one line. Pure: formats what it is given.
 */
public final class JsonLineFormatter extends Formatter {

  @Override
  public String format(LogRecord record) {
    StringBuilder json = new StringBuilder(192).append('{');
    field(json, "time", LineFormatter.TIME.format(record.getInstant())).append(',');
    field(json, "level", record.getLevel().getName()).append(',');
    field(json, "logger", record.getLoggerName() == null ? "" : record.getLoggerName()).append(',');
    field(json, "message", formatMessage(record)).append(',');
    field(json, "thread", threadName(record.getLongThreadID()));
    if (record.getThrown() != null) {
      field(json.append(','), "error", LineFormatter.stackTrace(record.getThrown()));
    }
    return json.append('}').append('\n').toString();
  }

  /**
   * A handler formats on the thread that logged (ConsoleHandler does), so that thread's name is the
   * logging thread's; for a record formatted elsewhere only its id is known.
   */
  private static String threadName(long threadId) {
    Thread current = Thread.currentThread();
    return current.getId() == threadId ? current.getName() : "thread-" + threadId;
  }

  private static StringBuilder field(StringBuilder json, String name, String value) {
    return JsonStrings.quote(JsonStrings.quote(json, name).append(':'), value == null ? "" : value);
  }
}
