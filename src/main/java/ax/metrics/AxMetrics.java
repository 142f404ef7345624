package ax.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The scheduler's own meters (R9), named once here so dashboards and alerts have one reference.
 * Exposed at {@code /metrics} in Prometheus format next to Vert.x's HTTP and JVM meters.
 */
public final class AxMetrics {
  private final MeterRegistry registry;
  private final Timer scheduleDelay;
  private final DistributionSummary scheduleBatchSize;
  private final Counter loaded;
  private final Timer claimLatency;
  private final Counter claimed;
  private final Counter executeSuccess;
  private final Counter executeFailure;
  private final Counter executeTimeout;
  private final Counter retries;
  private final Counter lateResults;
  private final Counter rescuedRunning;
  private final Counter rescuedUnacked;
  private final Counter requeuedOverdue;
  private final Counter occurrencesCreated;
  private final Counter occurrencesMisfired;
  private final Counter dependencySkips;
  private final Counter released;
  private final java.util.concurrent.atomic.AtomicLong webhookBacklog = new java.util.concurrent.atomic.AtomicLong();

  public AxMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.scheduleDelay = Timer.builder("ax_schedule_delay")
        .description("claim time minus trigger_time, on the database clock")
        .publishPercentiles(0.5, 0.95, 0.99).distributionStatisticExpiry(Duration.ofMinutes(1))
        .register(registry);
    this.scheduleBatchSize = DistributionSummary.builder("ax_schedule_batch_size")
        .description("tasks per batch sent from the wheel to dispatch").register(registry);
    this.loaded = Counter.builder("ax_loader_rows_total").description("rows loaded from PostgreSQL into memory")
        .register(registry);
    this.claimLatency = Timer.builder("ax_dispatch_claim_latency").publishPercentiles(0.5, 0.99)
        .description("round trip of one batched claim").register(registry);
    this.claimed = Counter.builder("ax_dispatch_claimed_total").register(registry);
    this.executeSuccess = Counter.builder("ax_execute_total").tag("outcome", "success").register(registry);
    this.executeFailure = Counter.builder("ax_execute_total").tag("outcome", "failure").register(registry);
    this.executeTimeout = Counter.builder("ax_execute_total").tag("outcome", "timeout").register(registry);
    this.retries = Counter.builder("ax_task_retry_total").description("retries scheduled").register(registry);
    this.lateResults = Counter.builder("ax_late_results_total")
        .description("outcomes refused because the task was no longer RUNNING in that attempt").register(registry);
    this.rescuedRunning = Counter.builder("ax_recovery_total").tag("kind", "running_timed_out").register(registry);
    this.rescuedUnacked = Counter.builder("ax_recovery_total").tag("kind", "dispatch_unacked").register(registry);
    this.requeuedOverdue = Counter.builder("ax_recovery_total").tag("kind", "overdue_requeued").register(registry);
    this.occurrencesCreated = Counter.builder("ax_schedule_occurrences_total")
        .description("occurrences of recurring schedules created (each an ordinary task)").register(registry);
    this.occurrencesMisfired = Counter.builder("ax_schedule_misfired_total")
        .description("due times of recurring schedules recorded as misfired instead of fired").register(registry);
    this.dependencySkips = Counter.builder("ax_dependency_skipped_total")
        .description("tasks SKIPPED because a dependency did not succeed (each has an alert event)").register(registry);
    this.released = Counter.builder("ax_released_total")
        .description("held tasks let go (dependencies met, overlap ended) announced to the leader's wheel")
        .register(registry);
    Gauge.builder("ax_webhook_backlog", webhookBacklog::get)
        .description("webhook notifications pending delivery (counted by the leader every 5 s)").register(registry);
    for (String outcome : new String[] {"delivered", "retry", "failed"}) {
      Counter.builder("ax_webhook_deliveries_total").tag("outcome", outcome)
          .description("webhook tries by outcome: delivered, retry (a later try follows), failed (the last try)")
          .register(registry);
    }
  }

  public void recordDependencySkips(long n) {
    dependencySkips.increment(n);
  }

  public void recordReleased(int n) {
    released.increment(n);
  }

  /** One webhook try: delivered, or failed (with retries left or for good). */
  public void recordWebhookTry(boolean delivered, int tryNumber) {
    String outcome = delivered ? "delivered" : tryNumber >= 3 ? "failed" : "retry";
    Counter.builder("ax_webhook_deliveries_total").tag("outcome", outcome)
        .description("webhook tries by outcome: delivered, retry (a later try follows), failed (the last try)")
        .register(registry).increment();
  }

  /** Pending notifications (not delivered, tries left), as the leader last counted them. */
  public void recordWebhookBacklog(long pending) {
    webhookBacklog.set(pending);
  }

  public void gaugeWheelDepth(LongSupplier depth) {
    Gauge.builder("ax_wheel_queue_depth", depth::getAsLong).description("tasks held in memory (wheel + delay queue)")
        .register(registry);
  }

  public void gaugeClockOffset(LongSupplier offsetMs) {
    Gauge.builder("ax_clock_offset_ms", offsetMs::getAsLong)
        .description("node wall clock minus database clock; alert above 50 ms").register(registry);
  }

  public void recordLoaded(int rows) {
    loaded.increment(rows);
  }

  public void recordFiredBatch(int size) {
    scheduleBatchSize.record(size);
  }

  public void recordScheduleDelay(long millis) {
    scheduleDelay.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
  }

  public void recordClaim(int claimedCount, long nanos) {
    claimed.increment(claimedCount);
    claimLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void recordSuccess() {
    executeSuccess.increment();
  }

  public void recordFailure(boolean timedOut) {
    (timedOut ? executeTimeout : executeFailure).increment();
  }

  public void recordRetriesScheduled(int n) {
    retries.increment(n);
  }

  /**
   * Attempts given up on because their caller is gone: fired again as a new attempt. {@code holder_left}
   * counts calls whose node died with them in flight — the only calls ax makes twice.
   */
  public void recordAttemptsLost(String cause, int n) {
    Counter.builder("ax_attempts_lost_total")
        .description("attempts whose caller died or never reported; the task was fired again")
        .tag("cause", cause).register(registry).increment(n);
  }

  /** Outcomes of this node's calls it gave up writing (backlog full, or refused by the database for good). */
  public void recordOutcomesDropped(int n) {
    Counter.builder("ax_outcomes_dropped_total").description("call outcomes this node could not write")
        .register(registry).increment(n);
  }

  public void gaugeOutcomeBacklog(java.util.function.IntSupplier unwritten) {
    Gauge.builder("ax_outcome_backlog", unwritten::getAsInt)
        .description("outcomes of this node's calls waiting to be written").register(registry);
  }

  public void recordLateResults(int n) {
    lateResults.increment(n);
  }

  public void recordRescuedRunning(int n) {
    rescuedRunning.increment(n);
  }

  public void recordOccurrences(int created, long misfired) {
    occurrencesCreated.increment(created);
    occurrencesMisfired.increment(misfired);
  }

  public void recordRescuedUnacked(int n) {
    rescuedUnacked.increment(n);
  }

  public void recordRequeuedOverdue(int n) {
    requeuedOverdue.increment(n);
  }

  // ---- executors

  public void recordBridgeRefusal(String reason) {
    Counter.builder("ax_bridge_refused_total").description("bridge frames or connections refused")
        .tag("reason", reason).register(registry).increment();
  }

  /**
   * The bridge's connections by state, and the heap bytes of partial frames the unauthenticated ones
   * hold (bounded by {@code AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES}).
   */
  public void gaugeBridge(IntSupplier unauthenticated, IntSupplier authenticated, LongSupplier unauthenticatedBytes) {
    Gauge.builder("ax_bridge_connections", unauthenticated::getAsInt).tag("state", "unauthenticated")
        .description("open executor bridge connections").register(registry);
    Gauge.builder("ax_bridge_connections", authenticated::getAsInt).tag("state", "authenticated")
        .description("open executor bridge connections").register(registry);
    Gauge.builder("ax_bridge_unauthenticated_buffered_bytes", unauthenticatedBytes::getAsLong)
        .description("heap bytes of partial frames held by connections that have not authenticated")
        .register(registry);
  }

  /** A heartbeat or result from a session the leader no longer accepts (OFFLINE, replaced, stale). */
  public void recordExecutorRefused(String kind, int n) {
    Counter.builder("ax_executor_refused_total").description("executor messages refused")
        .tag("kind", kind).register(registry).increment(n);
  }

  public void recordExecutorEvent(String event) {
    Counter.builder("ax_executor_events_total").description("executor registrations and health changes")
        .tag("event", event).register(registry).increment();
  }

  /**
   * Claim-to-ack time of one dispatch batch, the part of it spent on the DISPATCHING write, and the
   * batch's size (the per-task overhead is their ratio).
   */
  public void recordDispatch(int tasks, long nanos, long writeNanos) {
    Timer.builder("ax_executor_dispatch_latency").description("DISPATCHING write, push and ack of one batch")
        .publishPercentiles(0.5, 0.99).register(registry).record(nanos, TimeUnit.NANOSECONDS);
    Timer.builder("ax_executor_dispatch_write_latency").description("the DISPATCHING write of one batch")
        .register(registry).record(writeNanos, TimeUnit.NANOSECONDS);
    DistributionSummary.builder("ax_executor_dispatch_batch_size").register(registry).record(tasks);
  }

  public void recordExecutorOutcomes(int success, int failure) {
    executeSuccess.increment(success);
    executeFailure.increment(failure);
  }

  public void gaugeReadyQueue(LongSupplier depth) {
    Gauge.builder("ax_executor_ready_queue_depth", depth::getAsLong)
        .description("READY processor tasks waiting in the leader for executor capacity").register(registry);
  }
}
