package ax.config;

import ax.bridge.BridgeLimits;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bridge's settings: documented defaults, and every bad value stops the node naming its variable. */
class AxConfigBridgeTest {
  private static BridgeLimits limits(String... kv) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return AxConfig.fromEnv(env, true).executors().bridgeLimits();
  }

  private static String refusal(String... kv) {
    return assertThrows(ConfigException.class, () -> limits(kv)).getMessage();
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    BridgeLimits d = limits();

    assertEquals(1 << 20, d.maxFrameBytes());
    assertEquals(10_000, d.authTimeoutMs());
    assertEquals(30_000, d.idleTimeoutMs(), "6 heartbeats of 5 s");
    assertEquals(1_024, d.maxUnauthenticated());
    assertEquals(16 << 20, d.unauthenticatedBufferBytes());
    assertEquals(256 * 1024, d.preAuthMaxFrameBytes());
  }

  @Test
  void theDefaultIdleTimeoutGrowsWithTheHeartbeatSoAnExecutorMissingFiveIsNotCut() {
    assertEquals(60_000, limits("AX_EXECUTOR_HEARTBEAT_MS", "10000").idleTimeoutMs());
    assertEquals(30_000, limits("AX_EXECUTOR_HEARTBEAT_MS", "500").idleTimeoutMs());
  }

  @Test
  void anIdleTimeoutShorterThanFourHeartbeatsIsRefused() {
    String why = refusal("AX_EXECUTOR_HEARTBEAT_MS", "5000", "AX_BRIDGE_IDLE_TIMEOUT_MS", "19999");

    assertTrue(why.contains("AX_BRIDGE_IDLE_TIMEOUT_MS") && why.contains("AX_EXECUTOR_HEARTBEAT_MS"), why);
    assertEquals(20_000, limits("AX_BRIDGE_IDLE_TIMEOUT_MS", "20000").idleTimeoutMs());
  }

  @Test
  void everyBadValueNamesItsVariable() {
    String[][] bad = {
        {"AX_BRIDGE_AUTH_TIMEOUT_MS", "0"}, {"AX_BRIDGE_AUTH_TIMEOUT_MS", "ten"},
        {"AX_BRIDGE_AUTH_TIMEOUT_MS", "300001"}, {"AX_BRIDGE_IDLE_TIMEOUT_MS", "-1"},
        {"AX_BRIDGE_MAX_UNAUTHENTICATED", "0"}, {"AX_BRIDGE_MAX_UNAUTHENTICATED", "1e3"},
        {"AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES", "1000"}, {"AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES", "262143"},
        {"AX_BRIDGE_MAX_FRAME_BYTES", "1023"},
    };
    for (String[] kv : bad) {
      String why = refusal(kv);
      assertTrue(why.contains(kv[0]), kv[0] + "=" + kv[1] + ": " + why);
    }
  }

  @Test
  void theUnauthenticatedBufferNeedOnlyHoldOneFrameBeforeAuthentication() {
    assertEquals(4_096, limits("AX_BRIDGE_MAX_FRAME_BYTES", "4096", "AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES", "4096")
        .unauthenticatedBufferBytes());
  }
}
