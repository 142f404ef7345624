package ax.config;

import ax.admin.AdminTokens;
import ax.admin.SecretSealer;
import ax.alert.AlertFormat;
import ax.alert.AlertSettings;
import ax.bridge.BridgeLimits;
import ax.ratelimit.RateLimitSpec;
import ax.schedule.ScheduleSettings;
import ax.task.RetryBackoff;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Every setting of a node, read once from the environment and validated at start: a bad value stops
 * the node with a message that names the variable, instead of surfacing later as odd behaviour.
 * The variables and defaults are the ones of API.md plus the tuning knobs documented in the README.
 * AX_LOG_LEVEL and AX_LOG_FORMAT are read apart, by {@link LogSettings}, before any command runs.
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
    SchedulerTuning scheduler,
    ClusterSettings cluster,
    ExecutorSettings executors,
    ScheduleSettings schedules,
    WebhookSettings webhooks,
    AlertConfig alerts,
    AdminSettings admin,
    long drainTimeoutMs,
    long handOverHorizonMs) {

  /**
   * Administration (issue 14 part 4): {@code jwtSecret} (AX_ADMIN_JWT_SECRET) null = the admin API is
   * off; {@code sealer} (from AX_MASTER_KEY) null = secrets are stored in clear. The admin API needs a
   * master key: keys it creates are never stored in clear.
   */
  public record AdminSettings(String jwtSecret, SecretSealer sealer) {
    public boolean apiEnabled() {
      return jwtSecret != null;
    }

    @Override
    public String toString() {
      return "AdminSettings[api " + (apiEnabled() ? "on" : "off") + ", master key " + (sealer == null ? "unset" : "set")
          + "]";
    }
  }

  /**
   * Built-in alerting (issue 13 part 4): where messages go ({@code url} null = off), in which format,
   * and the evaluation's pace ({@link AlertSettings}, with the lease TTL).
   */
  public record AlertConfig(String url, AlertFormat format, long evalMs, long windowMs, int maxPerMinute,
                            int timeoutMs) {
    public boolean enabled() {
      return url != null;
    }

    public AlertSettings settings(long leaseTtlMs) {
      return new AlertSettings(evalMs, windowMs, maxPerMinute, leaseTtlMs, timeoutMs);
    }
  }

  /**
   * Webhook delivery (notify_url): how often the leader looks for due notifications, one try's bound,
   * the wait after a failed first try (×4 after the second), the connections of its own HTTP pool, and
   * the longest it yields to a burst being fired (0 = never). The poll is 50 ms, not 200: under a steady
   * stream each round sends a quarter as many POSTs at once; the spread's lateness p99 with webhooks was
   * +24 % of the figure without them at 200 ms and +2 % at 50 ms, in two alternations of three runs each
   * (bench/results/2026-12-05/sub-ms-release/). Idle, the wait backs off to 4× the poll (PollPace).
   */
  public record WebhookSettings(long pollMs, int timeoutMs, long backoffMs, int connections, long yieldMs) {
  }

  /**
   * Clustering: empty {@code members} = a single node with a local event bus. Otherwise Hazelcast with
   * TCP join to exactly these members (no multicast), bound to {@code host}.
   */
  public record ClusterSettings(List<String> members, int port, String host) {
    public boolean enabled() {
      return !members.isEmpty();
    }
  }

  /**
   * Remote executors: the bridge, token checking, health timing and routing. {@code jwtSecret} null =
   * no bridge (HTTP targets only); it must be at least 32 bytes.
   */
  public record ExecutorSettings(String jwtSecret, String bridgeHost, BridgeLimits bridgeLimits, long heartbeatMs,
                                 String routing, String routingOverrides, String zone, int readyQueueCap) {
    public boolean bridgeEnabled() {
      return jwtSecret != null;
    }
  }

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
      long claimLeadMs,
      long completionLingerMs,
      long recoveryIntervalMs,
      long recoveryLookbackMs,
      long ackTimeoutMs,
      long clockSyncIntervalMs,
      int httpMaxConnections,
      RetryBackoff retryBackoff) {

    public static SchedulerTuning defaults() {
      // tick 20 and linger 20 (were 10 and 5): claiming ahead, the tick sets how often the wheel hands out
      // a claim (every min(tick, lead/2) ms) and the linger how many outcomes share a write; in a 20 000-task
      // spread over 60 s both together cut PostgreSQL's CPU per task by ~40 % with the same lateness
      // (bench/README.md, History, 2026-12-05 seventh session)
      return new SchedulerTuning(20, 512, 10_000, 60_000, 1_000, 5_000, 500_000, 200, 50, 20,
          30_000, 3_600_000, 5_000, 10_000, 256, RetryBackoff.defaults());
    }
  }

  public static AxConfig fromEnv(Map<String, String> env, boolean devMode) {
    return read(new EnvReader(env), devMode);
  }

  /**
   * One AX_* variable as a node resolves it: its value ({@code null} when unset without a default) and
   * whether it came from the environment or is the default.
   */
  public record Setting(String name, String value, boolean set) {
  }

  /**
   * Every setting {@link #fromEnv} reads, in the order it reads them, as it resolves them — validated
   * the same way, so a bad value throws the same {@link ConfigException}. What {@code ax config} prints.
   */
  public static List<Setting> settingsInEffect(Map<String, String> env, boolean devMode) {
    EnvReader r = new EnvReader(env);
    read(r, devMode);
    return r.readings();
  }

  private static AxConfig read(EnvReader r, boolean devMode) {
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
        r.longIn("AX_CLAIM_LEAD_MS", d.claimLeadMs(), 0, 1_000),
        r.longIn("AX_COMPLETION_LINGER_MS", d.completionLingerMs(), 0, 1_000),
        r.longIn("AX_RECOVERY_INTERVAL_MS", d.recoveryIntervalMs(), 100, 3_600_000),
        r.longIn("AX_RECOVERY_LOOKBACK_MS", d.recoveryLookbackMs(), 60_000, 30L * 86_400_000),
        r.longIn("AX_ACK_TIMEOUT_MS", d.ackTimeoutMs(), 100, 600_000),
        r.longIn("AX_CLOCK_SYNC_INTERVAL_MS", d.clockSyncIntervalMs(), 100, 600_000),
        r.intIn("AX_HTTP_MAX_CONNECTIONS", d.httpMaxConnections(), 1, 10_000),
        r.parsed("AX_RETRY_BACKOFF", d.retryBackoff(), RetryBackoff::parse));
    if (tuning.loadWindowMs() < tuning.wheelWindowMs()) {
      throw new ConfigException("AX_LOAD_WINDOW_MS (" + tuning.loadWindowMs()
          + ") must be at least AX_WHEEL_WINDOW_MS (" + tuning.wheelWindowMs() + ")");
    }
    if (tuning.claimLeadMs() >= tuning.wheelWindowMs()) {
      throw new ConfigException("AX_CLAIM_LEAD_MS (" + tuning.claimLeadMs()
          + ") must be less than AX_WHEEL_WINDOW_MS (" + tuning.wheelWindowMs() + ")");
    }
    String pgUrl = r.string("AX_PG_URL", null);
    if (!devMode && pgUrl == null) {
      throw new ConfigException("AX_PG_URL is required for `ax server`, e.g. "
          + "AX_PG_URL=postgresql://postgres@127.0.0.1:5432/ax (use `ax dev` for an embedded database)");
    }
    String allow = r.string("AX_CALLBACK_ALLOWLIST", devMode ? "127.0.0.1,localhost" : "");
    long drainTimeoutMs = r.longIn("AX_DRAIN_TIMEOUT_MS", 10_000, 0, 600_000);
    long handOverHorizonMs = r.longIn("AX_HAND_OVER_HORIZON_MS", 500, 0, 60_000);
    if (handOverHorizonMs > 0 && handOverHorizonMs >= drainTimeoutMs) {
      throw new ConfigException("AX_HAND_OVER_HORIZON_MS (" + handOverHorizonMs + ") must be less than "
          + "AX_DRAIN_TIMEOUT_MS (" + drainTimeoutMs + "): a stopping leader calls what it claimed for the "
          + "hand-over during its drain; set AX_HAND_OVER_HORIZON_MS=0 to turn the hand-over claim off");
    }
    return new AxConfig(
        r.intIn("AX_HTTP_PORT", 8080, 0, 65_535),
        r.intIn("AX_BRIDGE_PORT", 7000, 0, 65_535),
        r.string("AX_NODE_ID", "node-" + UUID.randomUUID().toString().substring(0, 8)),
        pgUrl,
        r.intIn("AX_PG_POOL_SIZE", 8, 1, 200),
        r.string("AX_REDIS_URL", null),
        bootstrapKey(r.string("AX_BOOTSTRAP_KEY", null)),
        Arrays.stream(allow.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
        r.parsed("AX_RATE_LIMIT", new RateLimitSpec(20, 20), RateLimitSpec::parse),
        r.longIn("AX_LEASE_TTL_MS", 30_000, 1_000, 600_000),
        tuning,
        cluster(r),
        executors(r),
        schedules(r),
        new WebhookSettings(
            r.longIn("AX_WEBHOOK_POLL_MS", 50, 10, 60_000),
            r.intIn("AX_WEBHOOK_TIMEOUT_MS", 5_000, 100, 30_000),
            r.longIn("AX_WEBHOOK_BACKOFF_MS", 1_000, 0, 600_000),
            r.intIn("AX_WEBHOOK_CONNECTIONS", 64, 1, 1_024),
            r.longIn("AX_WEBHOOK_YIELD_MS", 10_000, 0, 60_000)),
        alerts(r),
        admin(r),
        drainTimeoutMs,
        handOverHorizonMs);
  }

  private static String bootstrapKey(String value) {
    if (value != null) {
      String[] parts = value.split(":", 3);
      if (parts.length < 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
        throw new ConfigException("AX_BOOTSTRAP_KEY must be ak:sk[:tenant]");
      }
      if (SecretSealer.isSealed(parts[1])) { // would be read back as a sealed value, not as the secret
        throw new ConfigException("AX_BOOTSTRAP_KEY: a secret may not start with " + SecretSealer.PREFIX);
      }
    }
    return value;
  }

  /** AX_MASTER_KEY and AX_ADMIN_JWT_SECRET alone: the CLI's key commands read the same two variables. */
  public static AdminSettings admin(Map<String, String> env) {
    return admin(new EnvReader(env));
  }

  private static AdminSettings admin(EnvReader r) {
    SecretSealer sealer = null;
    String master = r.string("AX_MASTER_KEY", null);
    String previous = r.string("AX_MASTER_KEY_PREVIOUS", null);
    if (master != null) {
      try {
        sealer = SecretSealer.fromBase64(master);
        if (previous != null) {
          sealer = sealer.withPrevious(previous);
        }
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage().replace("AX_MASTER_KEY must", "AX_MASTER_KEY (or _PREVIOUS) must"));
      }
    } else if (previous != null) {
      throw new ConfigException("AX_MASTER_KEY_PREVIOUS is set without AX_MASTER_KEY (the key to reseal under)");
    }
    String jwt = r.string(AdminTokens.SECRET_VARIABLE, null);
    if (jwt != null) {
      try {
        AdminTokens.KIND.requireStrongSecret(jwt);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage() + " (HS256 key; e.g. openssl rand -base64 48)");
      }
      if (sealer == null) {
        throw new ConfigException(AdminTokens.SECRET_VARIABLE + " turns the admin API on, which needs AX_MASTER_KEY "
            + "(keys it creates are stored encrypted): set it to 32 random bytes in base64 (openssl rand -base64 32)");
      }
    }
    return new AdminSettings(jwt, sealer);
  }

  /**
   * AX_ALERT_WEBHOOK_URL is the operator's own setting, not user input: it is not held to the callback
   * allow-list (a chat bot's URL is usually public, an in-house receiver often private); it must be an
   * absolute http(s) URL.
   */
  private static AlertConfig alerts(EnvReader r) {
    String url = r.string("AX_ALERT_WEBHOOK_URL", null);
    if (url != null) {
      URI uri;
      try {
        uri = new URI(url);
      } catch (URISyntaxException e) {
        throw new ConfigException("AX_ALERT_WEBHOOK_URL=" + url + " is not a URL: " + e.getMessage());
      }
      if (uri.getScheme() == null || !uri.getScheme().matches("(?i)https?") || uri.getHost() == null) {
        throw new ConfigException("AX_ALERT_WEBHOOK_URL=" + url + " must be an absolute http:// or https:// URL");
      }
    }
    long evalMs = r.longIn("AX_ALERT_EVAL_MS", 15_000, 100, 600_000);
    long windowMs = r.longIn("AX_ALERT_WINDOW_MS", 300_000, 1_000, 3_600_000);
    if (windowMs < evalMs) {
      throw new ConfigException("AX_ALERT_WINDOW_MS (" + windowMs + ") must be at least AX_ALERT_EVAL_MS (" + evalMs
          + "): a rule must see at least one evaluation's figures");
    }
    return new AlertConfig(url, r.parsed("AX_ALERT_FORMAT", AlertFormat.JSON, AlertFormat::parse), evalMs, windowMs,
        r.intIn("AX_ALERT_MAX_PER_MINUTE", 20, 1, 10_000), r.intIn("AX_ALERT_TIMEOUT_MS", 5_000, 100, 60_000));
  }

  /** Recurring schedules: when a due time counts as missed, and how many missed ones fire_all may fire. */
  private static ScheduleSettings schedules(EnvReader r) {
    ScheduleSettings d = ScheduleSettings.defaults();
    return new ScheduleSettings(
        r.longIn("AX_SCHEDULE_MISFIRE_THRESHOLD_MS", d.misfireThresholdMs(), 0, 86_400_000),
        r.intIn("AX_SCHEDULE_FIRE_ALL_CAP", d.fireAllCap(), 1, d.maxStepsPerPlan()),
        d.maxStepsPerPlan());
  }

  private static ClusterSettings cluster(EnvReader r) {
    List<String> members = Arrays.stream(r.string("AX_CLUSTER_MEMBERS", "").split(","))
        .map(String::trim).filter(s -> !s.isEmpty()).toList();
    for (String m : members) {
      int colon = m.lastIndexOf(':');
      boolean ok = colon > 0 && m.substring(colon + 1).matches("\\d{1,5}")
          && Integer.parseInt(m.substring(colon + 1)) <= 65_535;
      if (!ok) {
        throw new ConfigException("AX_CLUSTER_MEMBERS: '" + m + "' is not host:port (list each member, no ranges)");
      }
    }
    return new ClusterSettings(members, r.intIn("AX_CLUSTER_PORT", 5701, 1, 65_535),
        r.string("AX_CLUSTER_HOST", "127.0.0.1"));
  }

  /** What one executor connection may cost; the idle timeout must outlast the leader's OFFLINE verdict. */
  private static BridgeLimits bridgeLimits(EnvReader r, long heartbeatMs) {
    int maxFrame = r.intIn("AX_BRIDGE_MAX_FRAME_BYTES", BridgeLimits.DEFAULT_MAX_FRAME_BYTES, 1_024, 64 << 20);
    long auth = r.longIn("AX_BRIDGE_AUTH_TIMEOUT_MS", BridgeLimits.DEFAULT_AUTH_TIMEOUT_MS, 100, 300_000);
    long idle = r.longIn("AX_BRIDGE_IDLE_TIMEOUT_MS", BridgeLimits.defaultIdleTimeoutMs(heartbeatMs), 1_000,
        86_400_000);
    long minIdle = BridgeLimits.MIN_IDLE_HEARTBEATS * heartbeatMs;
    if (idle < minIdle) {
      throw new ConfigException("AX_BRIDGE_IDLE_TIMEOUT_MS (" + idle + ") must be at least "
          + BridgeLimits.MIN_IDLE_HEARTBEATS + " x AX_EXECUTOR_HEARTBEAT_MS (" + minIdle
          + "): a shorter one would cut executors that are merely slow to heartbeat");
    }
    int maxUnauthenticated = r.intIn("AX_BRIDGE_MAX_UNAUTHENTICATED", BridgeLimits.DEFAULT_MAX_UNAUTHENTICATED, 1,
        1_000_000);
    long preAuthFrame = Math.min(maxFrame, BridgeLimits.PRE_AUTH_MAX_FRAME_BYTES);
    long buffer = r.longIn("AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES",
        BridgeLimits.DEFAULT_UNAUTHENTICATED_BUFFER_BYTES, 1_024, 1L << 32);
    if (buffer < preAuthFrame) {
      throw new ConfigException("AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES (" + buffer + ") must be at least "
          + preAuthFrame + " (the largest frame before authentication), or no register could ever arrive");
    }
    return new BridgeLimits(maxFrame, auth, idle, maxUnauthenticated, buffer, BridgeLimits.FORWARD_TIMEOUT_MS);
  }

  private static ExecutorSettings executors(EnvReader r) {
    String secret = r.string("AX_EXECUTOR_JWT_SECRET", null);
    if (secret != null && secret.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < 32) {
      throw new ConfigException("AX_EXECUTOR_JWT_SECRET must be at least 32 bytes (HS256 key)");
    }
    String routing = r.string("AX_ROUTING", "weighted_random");
    if (!routing.equals("weighted_random") && !routing.equals("consistent_hash")) {
      throw new ConfigException("AX_ROUTING must be weighted_random or consistent_hash, not '" + routing + "'");
    }
    long heartbeatMs = r.longIn("AX_EXECUTOR_HEARTBEAT_MS", 5_000, 100, 600_000);
    return new ExecutorSettings(secret, r.string("AX_BRIDGE_HOST", "0.0.0.0"), bridgeLimits(r, heartbeatMs),
        heartbeatMs, routing, r.string("AX_ROUTING_OVERRIDES", ""), r.string("AX_ZONE", null),
        r.intIn("AX_READY_QUEUE_CAP", 200_000, 1_000, 10_000_000));
  }
}
