package ax.health;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 10, finding 9: readiness follows the dependencies (and draining); probes are shared. */
class ReadinessTest {
  private final AtomicLong nanos = new AtomicLong();
  private final AtomicBoolean draining = new AtomicBoolean();

  private Readiness readiness(Readiness.Dependency... needs) {
    return new Readiness(List.of(needs), draining::get, nanos::get);
  }

  @Test
  void readyWhenEveryDependencyAnswersAndNotDraining() {
    Readiness.Report r = readiness(new Readiness.Dependency("postgres", () -> Future.succeededFuture(1)),
        new Readiness.Dependency("redis", () -> Future.succeededFuture("PONG"))).check().await();
    assertTrue(r.ready());
    assertEquals(Map.of("postgres", "UP", "redis", "UP"), r.checks());
    assertNull(r.reason());
  }

  @Test
  void aFailingOrThrowingDependencyMakesTheNodeUnreadyAndSaysWhich() {
    Readiness.Report r = readiness(new Readiness.Dependency("postgres", () -> Future.failedFuture("Connection refused")),
        new Readiness.Dependency("redis", () -> {
          throw new IllegalStateException("closed");
        })).check().await();
    assertFalse(r.ready());
    assertEquals(Map.of("postgres", "DOWN", "redis", "DOWN"), r.checks());
    assertEquals("postgres is unusable: Connection refused", r.reason());
  }

  @Test
  void aProbeThatDoesNotAnswerIsDownAfterTheTimeout() {
    long start = System.nanoTime();
    Readiness.Report r = readiness(new Readiness.Dependency("postgres", () -> Promise.promise().future()))
        .check().await();
    assertFalse(r.ready());
    assertTrue(System.nanoTime() - start >= Readiness.PROBE_TIMEOUT_MS * 1_000_000 - 50_000_000);
  }

  @Test
  void aDrainingNodeIsNotReadyThoughItsDependenciesAre() {
    draining.set(true);
    Readiness.Report r = readiness(new Readiness.Dependency("postgres", () -> Future.succeededFuture(1))).check().await();
    assertFalse(r.ready());
    assertTrue(r.draining());
  }

  @Test
  void callersShareAProbeInProgressAndReuseAnAnswerForHalfASecond() {
    AtomicInteger probes = new AtomicInteger();
    Promise<Void> slow = Promise.promise();
    Readiness readiness = readiness(new Readiness.Dependency("postgres", () -> {
      probes.incrementAndGet();
      return slow.future();
    }));
    Future<Readiness.Report> a = readiness.check();
    Future<Readiness.Report> b = readiness.check();
    nanos.addAndGet(10_000_000_000L); // however long it takes, a probe in progress is shared
    readiness.check();
    assertEquals(1, probes.get());
    slow.complete();
    assertTrue(a.await().ready() && b.await().ready());

    nanos.addAndGet(Readiness.REUSE_MS * 1_000_000 - 1);
    readiness.check();
    assertEquals(1, probes.get(), "an answer younger than REUSE_MS is reused");
    nanos.addAndGet(1);
    readiness.check();
    assertEquals(2, probes.get());
  }
}
