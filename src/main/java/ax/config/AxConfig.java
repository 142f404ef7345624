package ax.config;

import ax.api.ratelimit.RateLimitSpec;
import ax.task.RetryBackoff;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Every setting of a node, read once from the environment and validated at start: a bad value stops
 * the node with a message that names the variable, instead of surfacing later as odd behaviour.
 * The variables and defaults are the ones of API.md plus the tuning knobs documented in the README.
 */
public record AxConfig(
    int httpPort,
    int bridgePort,
    String nodeId,
    String pgUrl,
    int pgPoolSize,
    String redisUrl,
    String bootstrapKey,
    List<String> callbackAllowlist,
    RateLimitSpec defaultRateLimit,
    long leaseTtlMs,
    SchedulerTuning scheduler) {

  /** Knobs of the wheel, loader, dispatch and recovery; defaults are what a production node uses. */
  public record SchedulerTuning(
      long tickMs,
      int wheelSize,
      long wheelWindowMs,
      long loadWindowMs,
      long loadIntervalMs,
      int loadBatch,
      int memoryCap,
      int claimBatch,
      long recoveryIntervalMs,
      long recoveryLookbackMs,
      long ackTimeoutMs,
      long clockSyncIntervalMs,
      int httpMaxConnections,
      RetryBackoff retryBackoff) {

    public static SchedulerTuning defaults() {
      return new SchedulerTuning(10, 512, 10_000, 60_000, 1_000, 5_000, 500_000, 200,
          30_000, 3_600_000, 30_000, 10_000, 256, RetryBackoff.defaults());
    }
  }

  public static AxConfig fromEnv(Map<String, String> env, boolean devMode) {
    EnvReader r = new EnvReader(env);
    SchedulerTuning d = SchedulerTuning.defaults();
    SchedulerTuning tuning = new SchedulerTuning(
        r.longIn("AX_TICK_MS", d.tickMs(), 1, 1_000),
        r.intIn("AX_WHEEL_SIZE", d.wheelSize(), 8, 65_536),
        r.longIn("AX_WHEEL_WINDOW_MS", d.wheelWindowMs(), 100, 3_600_000),
        r.longIn("AX_LOAD_WINDOW_MS", d.loadWindowMs(), 1_000, 86_400_000),
        r.longIn("AX_LOAD_INTERVAL_MS", d.loadIntervalMs(), 50, 600_000),
        r.intIn("AX_LOAD_BATCH", d.loadBatch(), 10, 100_000),
        r.intIn("AX_MEMORY_CAP", d.memoryCap(), 100, 50_000_000),
        r.intIn("AX_CLAIM_BATCH", d.claimBatch(), 1, 10_000),
        r.longIn("AX_RECOVERY_INTERVAL_MS", d.recoveryIntervalMs(), 100, 3_600_000),
        r.longIn("AX_RECOVERY_LOOKBACK_MS", d.recoveryLookbackMs(), 60_000, 30L * 86_400_000),
        r.longIn("AX_ACK_TIMEOUT_MS", d.ackTimeoutMs(), 100, 3_600_000),
        r.longIn("AX_CLOCK_SYNC_INTERVAL_MS", d.clockSyncIntervalMs(), 100, 600_000),
        r.intIn("AX_HTTP_MAX_CONNECTIONS", d.httpMaxConnections(), 1, 10_000),
        r.parsed("AX_RETRY_BACKOFF", d.retryBackoff(), RetryBackoff::parse));
    if (tuning.loadWindowMs() < tuning.wheelWindowMs()) {
      throw new ConfigException("AX_LOAD_WINDOW_MS (" + tuning.loadWindowMs()
          + ") must be at least AX_WHEEL_WINDOW_MS (" + tuning.wheelWindowMs() + ")");
    }
    String pgUrl = r.string("AX_PG_URL", null);
    if (!devMode && pgUrl == null) {
      throw new ConfigException("AX_PG_URL is required for `ax server`, e.g. "
          + "AX_PG_URL=postgresql://postgres@127.0.0.1:5432/ax (use `ax dev` for an embedded database)");
    }
    String allow = r.string("AX_CALLBACK_ALLOWLIST", devMode ? "127.0.0.1,localhost" : "");
    return new AxConfig(
        r.intIn("AX_HTTP_PORT", 8080, 0, 65_535),
        r.intIn("AX_BRIDGE_PORT", 7000, 0, 65_535),
        r.string("AX_NODE_ID", "node-" + UUID.randomUUID().toString().substring(0, 8)),
        pgUrl,
        r.intIn("AX_PG_POOL_SIZE", 8, 1, 200),
        r.string("AX_REDIS_URL", null),
        r.string("AX_BOOTSTRAP_KEY", null),
        Arrays.stream(allow.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
        r.parsed("AX_RATE_LIMIT", new RateLimitSpec(20, 20), RateLimitSpec::parse),
        r.longIn("AX_LEASE_TTL_MS", 30_000, 1_000, 600_000),
        tuning);
  }
}
