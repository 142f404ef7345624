package ax.config;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogSettingsTest {

  @Test
  void withoutVariablesTextAtInfo() {
    assertEquals(new LogSettings(LogSettings.Format.TEXT, Level.INFO), LogSettings.fromEnv(Map.of()));
  }

  @Test
  void formatAndLevelAreReadInAnyCaseWithTheUsualLevelNames() {
    assertEquals(new LogSettings(LogSettings.Format.JSON, Level.FINE),
        LogSettings.fromEnv(Map.of("AX_LOG_FORMAT", "json", "AX_LOG_LEVEL", "debug")));
    assertEquals(Level.WARNING, LogSettings.fromEnv(Map.of("AX_LOG_LEVEL", "WARN")).level());
    assertEquals(Level.SEVERE, LogSettings.fromEnv(Map.of("AX_LOG_LEVEL", "error")).level());
    assertEquals(Level.FINEST, LogSettings.fromEnv(Map.of("AX_LOG_LEVEL", "trace")).level());
    assertEquals(Level.FINER, LogSettings.fromEnv(Map.of("AX_LOG_LEVEL", "FINER")).level());
    assertEquals(LogSettings.Format.TEXT, LogSettings.fromEnv(Map.of("AX_LOG_FORMAT", "Text")).format());
  }

  @Test
  void aBadValueNamesTheVariableAndWhatIsExpected() {
    ConfigException level = assertThrows(ConfigException.class,
        () -> LogSettings.fromEnv(Map.of("AX_LOG_LEVEL", "loud")));
    assertTrue(level.getMessage().startsWith("AX_LOG_LEVEL=loud is invalid: expected one of ERROR, WARN, INFO"),
        level.getMessage());

    ConfigException format = assertThrows(ConfigException.class,
        () -> LogSettings.fromEnv(Map.of("AX_LOG_FORMAT", "xml")));
    assertEquals("AX_LOG_FORMAT=xml is invalid: expected text or json", format.getMessage());
  }
}
