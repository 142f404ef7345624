package ax.logging;

import ax.config.LogSettings;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Installs java.util.logging for a process of ax: one handler on stderr with the format of
 * {@code AX_LOG_FORMAT}, the root level of {@code AX_LOG_LEVEL}, and the {@link QuietLoggers}. Every
 * library logs through it: ax and Hazelcast use JUL directly, and SLF4J (Flyway, Netty, Micrometer, the
 * embedded PostgreSQL) is bound to JUL by slf4j-jdk14. The launcher calls it once, before a command runs.
 * A JVM started with {@code -Djava.util.logging.config.file} (or {@code .class}) keeps its own setup.
 */
public final class LogSetup {
  private LogSetup() {
  }

  public static void install(LogSettings settings) {
    if (System.getProperty("java.util.logging.config.file") != null
        || System.getProperty("java.util.logging.config.class") != null) {
      return;
    }
    LogManager manager = LogManager.getLogManager();
    try {
      // Levels go in as configuration, not as setLevel on Logger objects: the LogManager holds loggers
      // weakly, and a level set on one that was collected would be lost; configured levels also apply
      // to loggers created later.
      manager.readConfiguration(new ByteArrayInputStream(configuration(settings.level())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // A configured level reaches a logger below it only through a Logger object of that name: JUL makes
    // one when a descendant is created later, but not for descendants that exist already. Making it
    // here re-parents those under it. Their parent link is a strong reference, so it lives as they do.
    QuietLoggers.at(settings.level()).keySet().forEach(Logger::getLogger);
    ConsoleHandler stderr = new ConsoleHandler();
    stderr.setLevel(Level.ALL);
    stderr.setFormatter(formatter(settings.format()));
    try {
      stderr.setEncoding(StandardCharsets.UTF_8.name());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Logger.getLogger("").addHandler(stderr);
  }

  static Formatter formatter(LogSettings.Format format) {
    return format == LogSettings.Format.JSON ? new JsonLineFormatter() : new LineFormatter();
  }

  /** The LogManager's properties: no handler of its own (ours is added), the root and quiet levels. */
  static byte[] configuration(Level root) {
    Properties p = new Properties();
    p.setProperty("handlers", "");
    p.setProperty(".level", root.getName());
    for (Map.Entry<String, Level> e : QuietLoggers.at(root).entrySet()) {
      p.setProperty(e.getKey() + ".level", e.getValue().getName());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      p.store(out, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
