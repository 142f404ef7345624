package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.Backoff;
import ax.executor.Pool;
import ax.executor.ServerAddress;
import ax.protocol.Names;
import ax.protocol.TokenClaims;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Turns {@code ax.executor.*} into an {@link AxExecutor.Builder} with everything but the handlers, and
 * checks every value on the way. The SDK validates too, but names its own settings ("token is
 * required"); here each failure names the property to fix, and the checks the SDK leaves to the
 * scheduler (an executor id the token does not carry) fail at startup instead of in an endless
 * registration retry.
 */
final class ExecutorBuilderFactory {
  private ExecutorBuilderFactory() {
  }

  /** @throws AxExecutorConfigurationException naming the first missing or bad property */
  static AxExecutor.Builder create(AxExecutorProperties p) {
    AxExecutor.Builder b = AxExecutor.builder();
    b.servers(servers(p.getServers()));
    b.token(token(p.getToken()));
    b.executorId(executorId(p.getToken(), p.getExecutorId()));
    if (p.getZone() != null && !p.getZone().isBlank()) {
      b.zone(p.getZone().trim());
    }
    for (Map.Entry<Pool, Integer> pool : p.getPools().entrySet()) {
      String name = "pools." + pool.getKey().wireName();
      Integer threads = pool.getValue();
      if (threads == null || threads < 1) {
        throw AxExecutorConfigurationException.property(name, "must be at least 1 thread, got " + threads);
      }
      b.poolSize(pool.getKey(), threads);
    }
    if (p.getBuffer() < 0) {
      throw AxExecutorConfigurationException.property("buffer", "must be ≥ 0, got " + p.getBuffer());
    }
    b.buffer(p.getBuffer());
    b.requestTimeout(positive("request-timeout", p.getRequestTimeout()));
    b.drainTimeout(positive("drain-timeout", p.getDrainTimeout()));
    b.reconnectBackoff(backoff(p.getReconnect()));
    AxExecutorProperties.Dedupe dedupe = p.getDedupe();
    if (dedupe.getMaxEntries() < 1) {
      throw AxExecutorConfigurationException.property("dedupe.max-entries", "must be at least 1, got "
          + dedupe.getMaxEntries());
    }
    b.dedupeWindow(positive("dedupe.ttl", dedupe.getTtl()), dedupe.getMaxEntries());
    return b;
  }

  private static List<ServerAddress> servers(List<String> specs) {
    List<ServerAddress> out = new ArrayList<>();
    for (String spec : specs == null ? List.<String>of() : specs) {
      if (spec == null || spec.isBlank()) {
        continue;
      }
      try {
        out.addAll(ServerAddress.parseList(spec));
      } catch (IllegalArgumentException e) {
        throw AxExecutorConfigurationException.property("servers", "is invalid: " + e.getMessage(), e);
      }
    }
    if (out.isEmpty()) {
      throw AxExecutorConfigurationException.property("servers",
          "is required: the bridge endpoints (host:port, the nodes' AX_BRIDGE_PORT) of the ax scheduler");
    }
    return out;
  }

  /** The id the executor registers under: the token's subject, which an explicit id must repeat. */
  private static String executorId(String token, String configured) {
    String subject;
    try {
      subject = TokenClaims.unverifiedSubject(token.trim());
    } catch (IllegalArgumentException e) {
      throw AxExecutorConfigurationException.property("token", "is not an executor token: " + e.getMessage(), e);
    }
    if (configured == null || configured.isBlank()) {
      if (!Names.isExecutorId(subject)) {
        throw AxExecutorConfigurationException.property("token", "has the subject '" + subject
            + "', which is no valid executor id");
      }
      return subject;
    }
    String id = configured.trim();
    if (!id.equals(subject)) {
      throw AxExecutorConfigurationException.property("executor-id", "is '" + id + "' but the token was minted for '"
          + subject + "', and the scheduler accepts only the token's own id: leave executor-id unset or mint a token"
          + " for it");
    }
    return id;
  }

  private static Backoff backoff(AxExecutorProperties.Reconnect r) {
    long initial = positive("reconnect.initial", r.getInitial()).toMillis();
    long max = positive("reconnect.max", r.getMax()).toMillis();
    if (initial < 1 || max < initial) {
      throw AxExecutorConfigurationException.property("reconnect", "needs 1 ms ≤ initial ≤ max, got initial="
          + r.getInitial() + " max=" + r.getMax());
    }
    if (r.getJitter() < 0 || r.getJitter() >= 1) {
      throw AxExecutorConfigurationException.property("reconnect.jitter", "must be in [0, 1), got " + r.getJitter());
    }
    return new Backoff(initial, max, r.getJitter(), () -> ThreadLocalRandom.current().nextDouble());
  }

  private static String token(String value) {
    if (value == null || value.isBlank()) {
      throw AxExecutorConfigurationException.property("token",
          "is required: the executor token, from `java -jar ax.jar executor-token --executor-id ID`");
    }
    return value.trim();
  }

  private static Duration positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw AxExecutorConfigurationException.property(name, "must be a positive duration, got " + d);
    }
    return d;
  }
}
