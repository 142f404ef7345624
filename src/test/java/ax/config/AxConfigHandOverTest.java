package ax.config;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The graceful stop's settings: the hand-over horizon must fit in the drain that calls what it claimed. */
class AxConfigHandOverTest {
  private static AxConfig config(String... kv) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return AxConfig.fromEnv(env, true);
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    assertEquals(10_000, config().drainTimeoutMs());
    assertEquals(500, config().handOverHorizonMs());
  }

  @Test
  void aHorizonThatDoesNotFitInTheDrainIsRefusedNamingBoth() {
    String why = assertThrows(ConfigException.class,
        () -> config("AX_DRAIN_TIMEOUT_MS", "400")).getMessage();

    assertTrue(why.contains("AX_HAND_OVER_HORIZON_MS") && why.contains("AX_DRAIN_TIMEOUT_MS"), why);
    assertEquals(0, config("AX_DRAIN_TIMEOUT_MS", "0", "AX_HAND_OVER_HORIZON_MS", "0").handOverHorizonMs());
    assertEquals(999, config("AX_DRAIN_TIMEOUT_MS", "1000", "AX_HAND_OVER_HORIZON_MS", "999").handOverHorizonMs());
  }
}
