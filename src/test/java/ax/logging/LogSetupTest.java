package ax.logging;

import ax.config.LogSettings;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real LogManager, installed and then put back as the JVM had it. */
class LogSetupTest {

  /** Installs {@code settings} with stderr captured, runs {@code logging}, and returns the lines written. */
  private static List<String> installedAndLogged(LogSettings settings, Runnable logging) throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      LogSetup.install(settings); // ConsoleHandler takes System.err as it is now
      logging.run();
    } finally {
      LogManager.getLogManager().readConfiguration();
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void onlyTheRecordsAnOperatorNeedsAreWrittenInTheChosenFormat() throws Exception {
    List<String> lines = installedAndLogged(new LogSettings(LogSettings.Format.TEXT, Level.INFO), () -> {
      // loggers created after the install: the configured levels reach them too
      Logger.getLogger("ax.node.AxNode" + System.nanoTime()).info("serving on port 8080");
      Logger.getLogger("org.flywaydb.core.internal.command.DbMigrate").info("Migrating schema to version 1");
      Logger.getLogger("org.flywaydb.core.Flyway").warning("a real problem");
      Logger.getLogger("com.hazelcast.cp.CPSubsystem").warning("CP Subsystem is not enabled");
      Logger.getLogger("ax.verticles.WheelVerticle").fine("not at INFO");
    });

    assertEquals(2, lines.size(), String.join("\n", lines));
    assertTrue(lines.get(0).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO    AxNode\\d+: serving on port 8080"),
        lines.get(0));
    assertTrue(lines.get(1).endsWith(" WARNING Flyway: a real problem"), lines.get(1));
  }

  /** Held so it stays alive: a library's logger made before the install (Flyway's, in a long-lived JVM). */
  private static final Logger EARLY = Logger.getLogger("org.flywaydb.core.internal.command.DbValidate");

  @Test
  void aLibraryLoggerMadeBeforeTheInstallIsHeldBackToo() throws Exception {
    List<String> lines = installedAndLogged(new LogSettings(LogSettings.Format.TEXT, Level.INFO), () ->
        EARLY.info("Successfully validated 6 migrations"));

    assertEquals(List.of(), lines);
  }

  @Test
  void jsonWritesOneObjectPerRecordAndDebugHidesNothing() throws Exception {
    List<String> lines = installedAndLogged(new LogSettings(LogSettings.Format.JSON, Level.FINE), () -> {
      Logger.getLogger("org.flywaydb.core.internal.command.DbMigrate").info("Migrating schema to version 1");
      Logger.getLogger("ax.verticles.WheelVerticle").fine("loaded 3");
      Logger.getLogger("ax.verticles.WheelVerticle").finer("below FINE");
    });

    assertEquals(2, lines.size(), String.join("\n", lines));
    assertEquals("Migrating schema to version 1", new JsonObject(lines.get(0)).getString("message"));
    assertEquals("FINE", new JsonObject(lines.get(1)).getString("level"));
  }

  @Test
  void aLibraryLoggingThroughSlf4jLandsInTheSameHandler() throws Exception {
    List<String> lines = installedAndLogged(new LogSettings(LogSettings.Format.TEXT, Level.INFO), () ->
        org.slf4j.LoggerFactory.getLogger("io.netty.SomeClass").warn("through slf4j"));

    assertEquals(1, lines.size(), String.join("\n", lines));
    assertTrue(lines.get(0).endsWith(" WARNING SomeClass: through slf4j"), lines.get(0));
  }
}
