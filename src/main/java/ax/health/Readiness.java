package ax.health;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether this node can serve requests now: it is not draining and every dependency a request needs
 * (PostgreSQL; Redis when AX_REDIS_URL is set) answers a probe within {@link #PROBE_TIMEOUT_MS}. A load
 * balancer polls it ({@code /health/ready}) to stop sending traffic to a node that would answer every
 * signed call 503.
 *
 * <p>Probes are shared: however many clients ask, at most one probe per dependency runs at a time, and
 * an answer is reused for {@link #REUSE_MS} — so health checks cannot load the database they check.
 */
public final class Readiness {
  /** A probe slower than this counts as down: a request waiting this long on it is already failing. */
  public static final long PROBE_TIMEOUT_MS = 2_000;
  /** How long one answer serves every caller. */
  public static final long REUSE_MS = 500;

  /** Something a request needs, and a cheap call that succeeds only when it is usable. */
  public record Dependency(String name, Supplier<Future<?>> probe) {
  }

  /** Each dependency's state, {@code UP} or {@code DOWN}, and why the first one that is down is. */
  public record Report(boolean draining, Map<String, String> checks, String reason) {
    public boolean ready() {
      return !draining && reason == null;
    }
  }

  private final List<Dependency> dependencies;
  private final BooleanSupplier draining;
  private final LongSupplier nanoTime;
  private Future<Map<String, Outcome>> current;
  /** When {@link #current} completed (nanoTime); an answer is reused for REUSE_MS from then. */
  private volatile long answeredAt;

  private record Outcome(boolean up, String why) {
  }

  public Readiness(List<Dependency> dependencies, BooleanSupplier draining) {
    this(dependencies, draining, System::nanoTime);
  }

  Readiness(List<Dependency> dependencies, BooleanSupplier draining, LongSupplier nanoTime) {
    this.dependencies = List.copyOf(dependencies);
    this.draining = draining;
    this.nanoTime = nanoTime;
  }

  /** The current report: a probe run now, or one still in progress or at most {@link #REUSE_MS} old. */
  public Future<Report> check() {
    return probes().map(outcomes -> {
      Map<String, String> checks = new LinkedHashMap<>();
      String reason = null;
      for (Map.Entry<String, Outcome> e : outcomes.entrySet()) {
        checks.put(e.getKey(), e.getValue().up() ? "UP" : "DOWN");
        if (!e.getValue().up() && reason == null) {
          reason = e.getKey() + " is unusable: " + e.getValue().why();
        }
      }
      return new Report(draining.getAsBoolean(), checks, reason);
    });
  }

  private synchronized Future<Map<String, Outcome>> probes() {
    long now = nanoTime.getAsLong();
    if (current != null && (!current.isComplete() || now - answeredAt < TimeUnit.MILLISECONDS.toNanos(REUSE_MS))) {
      return current;
    }
    Future<Map<String, Outcome>> probe = runAll();
    current = probe;
    probe.onComplete(done -> answeredAt = nanoTime.getAsLong());
    return probe;
  }

  private Future<Map<String, Outcome>> runAll() {
    List<Future<Outcome>> each = new ArrayList<>();
    for (Dependency d : dependencies) {
      Promise<Outcome> outcome = Promise.promise();
      Future<?> probe;
      try {
        probe = d.probe().get();
      } catch (RuntimeException e) {
        probe = Future.failedFuture(e);
      }
      probe.timeout(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS).onComplete(ar -> outcome.complete(ar.succeeded()
          ? new Outcome(true, null) : new Outcome(false, String.valueOf(ar.cause().getMessage()))));
      each.add(outcome.future());
    }
    return Future.join(each).map(all -> {
      Map<String, Outcome> out = new LinkedHashMap<>();
      for (int i = 0; i < dependencies.size(); i++) {
        out.put(dependencies.get(i).name(), each.get(i).result());
      }
      return out;
    });
  }
}
