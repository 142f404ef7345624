package ax.logging;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuietLoggersTest {

  @Test
  void atInfoTheChattyLibrariesAreHeldAtWarningAndTheirKnownFalseAlarmsAtSevere() {
    Map<String, Level> levels = QuietLoggers.at(Level.INFO);

    assertEquals(Level.WARNING, levels.get("org.flywaydb"));
    assertEquals(Level.WARNING, levels.get("com.hazelcast"));
    assertEquals(Level.SEVERE, levels.get("com.hazelcast.cp.CPSubsystem"));
    assertEquals(Level.SEVERE, levels.get("io.micrometer.core.instrument.MeterRegistry"));
    assertEquals(Level.WARNING, levels.get("io.zonky.test.db.postgres"));
  }

  @Test
  void aHeldLoggerIsNeverMoreTalkativeThanTheRoot() {
    for (Level root : new Level[] {Level.INFO, Level.WARNING, Level.SEVERE, Level.OFF}) {
      QuietLoggers.at(root).forEach((logger, level) ->
          assertTrue(level.intValue() >= root.intValue(), logger + " at " + level + " under root " + root));
    }
    assertEquals(Level.SEVERE, QuietLoggers.at(Level.SEVERE).get("org.flywaydb"));
  }

  @Test
  void whoeverDebugsSeesEverything() {
    assertTrue(QuietLoggers.at(Level.FINE).isEmpty());
    assertTrue(QuietLoggers.at(Level.FINEST).isEmpty());
  }
}
