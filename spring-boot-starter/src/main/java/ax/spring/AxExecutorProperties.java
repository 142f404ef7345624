package ax.spring;

import ax.executor.Pool;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ax.executor.*}: what the executor SDK's builder takes, bound from the application's
 * configuration. Only {@code servers} and {@code token} are required; every other default is the SDK's,
 * except {@code drain-timeout} (see there). The values are checked when the context starts
 * ({@link ExecutorBuilderFactory}): a missing or bad one stops the startup with a message naming it.
 */
@ConfigurationProperties(AxExecutorProperties.PREFIX)
public class AxExecutorProperties {
  public static final String PREFIX = "ax.executor";

  /** Whether to run the executor at all; false leaves the application without one. */
  private boolean enabled = true;

  /**
   * Bridge endpoints ({@code AX_BRIDGE_PORT}) of any scheduler nodes, {@code host:port}, as a list or
   * comma-separated; tried in order, then round-robin on failures.
   */
  private List<String> servers = new ArrayList<>();

  /** The executor token ({@code java -jar ax.jar executor-token --executor-id ID}). */
  private String token;

  /** Defaults to the token's subject; if set it must equal it, since the scheduler refuses any other. */
  private String executorId;

  /** The zone this executor runs in; the leader prefers executors of its own {@code AX_ZONE}. */
  private String zone;

  /** Worker threads per pool, keyed high, default, slow (SDK defaults 8 / 16 / 8). */
  private Map<Pool, Integer> pools = new EnumMap<>(Pool.class);

  /** How many acked tasks may wait for a thread, over all pools. */
  private int buffer = 256;

  /** How long a register, result or drain request waits for its answer. */
  private Duration requestTimeout = Duration.ofSeconds(10);

  /**
   * The bound on the drain at shutdown. 25 s rather than the SDK's 30 s, so the drain ends before
   * Spring stops waiting for it ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default)
   * and closes the beans the processors still use. Keep it below that timeout.
   */
  private Duration drainTimeout = Duration.ofSeconds(25);

  private final Reconnect reconnect = new Reconnect();

  private final Dedupe dedupe = new Dedupe();

  /** Delays between connection attempts: {@code initial} doubling up to {@code max}, minus random jitter. */
  public static class Reconnect {
    /** The delay before the first reconnect. */
    private Duration initial = Duration.ofMillis(100);
    /** The longest delay. */
    private Duration max = Duration.ofSeconds(5);
    /** The largest part of a delay taken off at random, 0 ≤ jitter < 1. */
    private double jitter = 0.2;

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }

    public double getJitter() {
      return jitter;
    }

    public void setJitter(double jitter) {
      this.jitter = jitter;
    }
  }

  /** How long executions are remembered, so a task handed over twice runs once. */
  public static class Dedupe {
    /** How long an execution is remembered. */
    private Duration ttl = Duration.ofMinutes(5);
    /** At most this many executions are remembered; the oldest go first. */
    private int maxEntries = 100_000;

    public Duration getTtl() {
      return ttl;
    }

    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }

    public int getMaxEntries() {
      return maxEntries;
    }

    public void setMaxEntries(int maxEntries) {
      this.maxEntries = maxEntries;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getServers() {
    return servers;
  }

  public void setServers(List<String> servers) {
    this.servers = servers;
  }

  public String getToken() {
    return token;
  }

  public void setToken(String token) {
    this.token = token;
  }

  public String getExecutorId() {
    return executorId;
  }

  public void setExecutorId(String executorId) {
    this.executorId = executorId;
  }

  public String getZone() {
    return zone;
  }

  public void setZone(String zone) {
    this.zone = zone;
  }

  public Map<Pool, Integer> getPools() {
    return pools;
  }

  public void setPools(Map<Pool, Integer> pools) {
    this.pools = pools;
  }

  public int getBuffer() {
    return buffer;
  }

  public void setBuffer(int buffer) {
    this.buffer = buffer;
  }

  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  public void setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
  }

  public Duration getDrainTimeout() {
    return drainTimeout;
  }

  public void setDrainTimeout(Duration drainTimeout) {
    this.drainTimeout = drainTimeout;
  }

  public Reconnect getReconnect() {
    return reconnect;
  }

  public Dedupe getDedupe() {
    return dedupe;
  }
}
