package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.dispatch.OutcomeBacklog;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.store.LeaseStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;

import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Holds (or waits for) the leader lease, even on a single node: only the lease holder runs the wheel,
 * dispatch and recovery. Owns the node's {@link LeaderTerm} and publishes every change on
 * {@link Addresses#LEADER_CHANGED}.
 *
 * <p>Protocol (see {@link LeaseStore}): a standby tries to acquire every {@code min(ttl/10, 250 ms)}; a
 * leader renews every ttl/3. A leader steps down as soon as a renewal is refused, and also — without
 * waiting for any answer — when its last successful renewal was <em>sent</em> more than
 * {@code ttl − margin} ago by the monotonic clock: the lease it holds may be about to expire on the
 * database clock, and the epoch fences anything it still tries to claim after that. That age is checked
 * by a watchdog of its own, not only when the next renewal is due: a renewal stuck unanswered (a
 * saturated pool, a hung connection) schedules nothing until it completes.
 *
 * <p>A renewal that <em>fails</em> (the database unreachable, a connection reset) is not a refusal: no
 * one can take the lease before it expires on the database clock, so it is retried at the standby's pace
 * and the watchdog alone decides when to step down. A database restart of a few seconds used to cost a
 * whole TTL without a leader — the node stepped down on the first failed renewal and then found its own
 * unexpired lease in the way (DatabaseStopIT: 20 s without scheduling after a 4 s stop, 30 s TTL). A
 * retry that succeeds proves the term never lapsed, since renew only extends a lease that has not expired.
 *
 * <p>A node does not start a term while outcomes of its earlier calls are still unwritten
 * ({@link OutcomeBacklog}): they are applied first, so its new term starts from what really happened.
 */
public final class LeaderVerticle extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(LeaderVerticle.class.getName());
  /** A standby tries every 250 ms and each try fails while the database is down: one line per 10 s. */
  private final ThrottledWarning acquireFailures = new ThrottledWarning(LOG);

  /**
   * @param lease  the lease this node competes for
   * @param holder the process-unique name it holds leases under
   * @param member its cluster member id, recorded with each term it leads (null when not clustered)
   * @param ttlMs  the lease's time to live
   */
  public record Settings(String lease, String holder, String member, long ttlMs) {
    public Settings {
      if (lease == null || holder == null || ttlMs < 100) {
        throw new IllegalArgumentException("leader settings out of range: " + this);
      }
    }
  }

  private final LeaseStore leases;
  private final OutcomeBacklog backlog;
  private final AxMetrics metrics;
  private final String lease;
  private final String holder;
  private final String member;
  private final long ttlMs;
  private LeaderTerm term;
  private long lastRenewSentNanos;
  private boolean inFlight;
  /** Renewals that failed in a row (not refused): the first is logged, and the one that ends the streak. */
  private int renewalFailures;
  /** Whether this standby stint was logged (see acquire). */
  private boolean standbyAnnounced;
  private long timerId = -1;
  private long watchdogId = -1;
  private boolean stopped;
  private long startedNanos;
  private MessageConsumer<String> resignations;

  /** Up this long, a standby counts as warm (see {@link #tryAfterResignationMs}). */
  static final long WARM_AFTER_MS = 60_000;
  static final long COLD_STANDBY_DEFERRAL_MS = 100;

  public LeaderVerticle(LeaseStore leases, OutcomeBacklog backlog, AxMetrics metrics, Settings settings) {
    this.leases = leases;
    this.backlog = backlog;
    this.metrics = metrics;
    this.lease = settings.lease();
    this.holder = settings.holder();
    this.member = settings.member();
    this.ttlMs = settings.ttlMs();
    this.term = LeaderTerm.standby(lease, holder);
  }

  @Override
  public Future<?> start() {
    vertx.eventBus().<Void>localConsumer(Addresses.LEADER_STATUS, msg -> msg.reply(term, LocalCodec.localOnly()));
    startedNanos = System.nanoTime();
    // a leader that resigned in a graceful stop: try now rather than at the next poll (see tryAfterResignationMs)
    resignations = vertx.eventBus().<String>consumer(Addresses.LEASE_RESIGNED, msg -> {
      if (!stopped && !term.leader() && !inFlight && !holder.equals(msg.body())) {
        vertx.cancelTimer(timerId);
        long deferMs = tryAfterResignationMs((System.nanoTime() - startedNanos) / 1_000_000);
        LOG.info(msg.body() + " resigned the lease; trying for it in " + deferMs + " ms");
        schedule(deferMs);
      }
    });
    schedule(0);
    watchdogId = vertx.setPeriodic(watchdogEveryMs(), id -> stepDownIfLeaseMayHaveExpired());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    vertx.cancelTimer(timerId);
    vertx.cancelTimer(watchdogId);
    if (!term.leader()) {
      return Future.succeededFuture();
    }
    LeaderTerm ending = term;
    change(LeaderTerm.standby(lease, holder));
    // Our own consumer goes first: the announcement published below would otherwise reach it after the
    // undeployment removed it, and Vert.x logs each such message as discarded (a warning at every stop).
    // Bounded: a cluster that cannot hear of the unregistration must not hold the resignation back.
    return resignations.unregister().timeout(1, TimeUnit.SECONDS).recover(e -> Future.succeededFuture())
        .compose(v -> leases.resign(lease, holder, ending.epoch()))
        .onSuccess(ok -> {
          LOG.info("resigned leader lease, epoch " + ending.epoch());
          vertx.eventBus().publish(Addresses.LEASE_RESIGNED, holder);
        })
        .recover(e -> {
          LOG.log(Level.WARNING, "could not resign the lease; it expires in " + ttlMs + " ms", e);
          return Future.succeededFuture();
        });
  }

  /**
   * How long a standby that heard of a resignation waits before trying for the lease: the longer it has
   * been up, the sooner, so the warmest standby wins the race (0 ms once up {@link #WARM_AFTER_MS}, up to
   * {@link #COLD_STANDBY_DEFERRAL_MS} just after its start). In a rolling restart the standby restarted a
   * moment ago used to win, and its first second as leader ran on cold code while its JIT was still
   * compiling the start-up (RollingRestartIT: tasks due then fired 0.5 to 2 s late). Alone, it still leads
   * within a tenth of a second, far inside the TTL: the deferral is kept short because, when every
   * standby is young the warmest still waits part of it (at 250 ms that cost 0.2 s of lateness there).
   */
  static long tryAfterResignationMs(long upMs) {
    long coldFor = Math.max(0, WARM_AFTER_MS - upMs);
    return coldFor * COLD_STANDBY_DEFERRAL_MS / WARM_AFTER_MS;
  }

  private void schedule(long delayMs) {
    timerId = vertx.setTimer(Math.max(1, delayMs), id -> tick());
  }

  private long renewEveryMs() {
    return ttlMs / 3;
  }

  /**
   * How often a standby tries for the lease: often enough that a successor starts within a quarter of a
   * second of the lease expiring (whatever the old leader left in flight waits for it), while a failed
   * try costs the database one index lookup.
   */
  private long acquireEveryMs() {
    return Math.max(50, Math.min(ttlMs / 10, 250));
  }

  /** Often enough that a step-down comes well inside the margin the lease is given up with. */
  private long watchdogEveryMs() {
    return Math.max(10, Math.min(100, safetyMarginMs() / 2));
  }

  private void stepDownIfLeaseMayHaveExpired() {
    if (term.leader() && System.nanoTime() - lastRenewSentNanos > (ttlMs - safetyMarginMs()) * 1_000_000L) {
      LOG.warning("no lease renewal confirmed within the TTL; stepping down (epoch " + term.epoch() + ")");
      change(LeaderTerm.standby(lease, holder));
    }
  }

  private void tick() {
    stepDownIfLeaseMayHaveExpired();
    if (inFlight) {
      schedule(acquireEveryMs());
      return;
    }
    inFlight = true;
    if (term.leader()) {
      renew();
    } else {
      acquire();
    }
  }

  private long safetyMarginMs() {
    return Math.max(200, ttlMs / 10);
  }

  private void acquire() {
    if (backlog.unwritten() > 0) {
      inFlight = false;
      LOG.fine(() -> backlog.unwritten() + " outcomes of earlier calls are not written yet; not leading before they are");
      schedule(acquireEveryMs());
      return;
    }
    long sentAt = System.nanoTime();
    leases.tryAcquire(lease, holder, member, ttlMs).onComplete(ar -> {
      inFlight = false;
      if (ar.succeeded() && ar.result().isPresent()) {
        lastRenewSentNanos = sentAt; // the lease runs from the database's now(), which is after sentAt
        LOG.info(holder + " became leader, epoch " + ar.result().get());
        standbyAnnounced = false;
        change(LeaderTerm.leading(lease, holder, ar.result().get()));
        schedule(renewEveryMs());
      } else {
        if (ar.failed()) {
          acquireFailures.log("lease acquisition failed; trying every " + acquireEveryMs() + " ms", ar.cause());
        } else if (!standbyAnnounced) {
          // once per stint as standby, so an operator sees this node's role at start and after a step-down
          standbyAnnounced = true;
          LOG.info(holder + " is standby: another node holds the leader lease");
        }
        schedule(acquireEveryMs());
      }
    });
  }

  private void renew() {
    long sentAt = System.nanoTime();
    long epoch = term.epoch();
    leases.renew(lease, holder, epoch, ttlMs).onComplete(ar -> {
      inFlight = false;
      if (ar.succeeded()) {
        metrics.recordLeaseRenewal(System.nanoTime() - sentAt);
      }
      if (!term.leader() || term.epoch() != epoch) {
        schedule(acquireEveryMs());
        return;
      }
      if (ar.failed()) {
        if (renewalFailures++ == 0) {
          LOG.log(Level.WARNING, "lease renewal failed; retrying every " + acquireEveryMs() + " ms, stepping down "
              + "if none is confirmed within " + (ttlMs - safetyMarginMs()) + " ms of the last (epoch " + epoch + ")",
              ar.cause());
        }
        schedule(acquireEveryMs());
      } else if (ar.result()) {
        lastRenewSentNanos = sentAt;
        if (renewalFailures > 0) {
          LOG.info("lease renewed after " + renewalFailures + " failed tries; still leader, epoch " + epoch);
          renewalFailures = 0;
        }
        schedule(renewEveryMs());
      } else {
        LOG.warning("lease renewal refused; stepping down (epoch " + epoch + ")");
        change(LeaderTerm.standby(lease, holder));
        schedule(acquireEveryMs());
      }
    });
  }

  private void change(LeaderTerm next) {
    term = next;
    renewalFailures = 0;
    metrics.recordLeaderTerm(next.leader(), next.epoch());
    vertx.eventBus().publish(Addresses.LEADER_CHANGED, next, LocalCodec.localOnly());
  }
}
