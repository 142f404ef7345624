package ax.logging;

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
    return quote(quote(json, name).append(':'), value == null ? "" : value);
  }

  /** Appends {@code s} as a JSON string (also the alert messages' writer, ax.alert). */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || unpairedSurrogate(s, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  /** A surrogate that is not half of a pair: written as an escape, or UTF-8 output would turn it into '?'. */
  private static boolean unpairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }
}
