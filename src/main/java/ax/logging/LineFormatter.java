package ax.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * {@code AX_LOG_FORMAT=text}: one line per record, {@code 2026-12-01T04:57:58.123Z INFO    AxNode: message},
 * then the stack trace when there is one. Time in UTC with milliseconds, the level padded so messages line
 * up, the logger's last name segment (the class for ax's loggers). Pure: formats what it is given.
 */
public final class LineFormatter extends Formatter {
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
      .withZone(ZoneOffset.UTC);

  @Override
  public String format(LogRecord record) {
    StringBuilder line = new StringBuilder(128)
        .append(TIME.format(record.getInstant())).append(' ')
        .append(String.format("%-7s", record.getLevel().getName())).append(' ')
        .append(shortName(record.getLoggerName())).append(": ")
        .append(formatMessage(record))
        .append(System.lineSeparator());
    if (record.getThrown() != null) {
      line.append(stackTrace(record.getThrown()));
    }
    return line.toString();
  }

  /** {@code ax.node.AxNode} → {@code AxNode}; an unnamed logger is {@code root}. */
  static String shortName(String loggerName) {
    if (loggerName == null || loggerName.isEmpty()) {
      return "root";
    }
    return loggerName.substring(loggerName.lastIndexOf('.') + 1);
  }

  static String stackTrace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w, true));
    return w.toString();
  }
}
