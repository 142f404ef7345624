package ax.metrics;

import ax.alert.NodeFigures;
import ax.fleet.ExecutorRegistry;
import ax.task.OutcomeTally;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The scheduler's own meters (R9), all registered here, at construction, with zero values: a series a
 * dashboard or an alert names is there from the node's start, so a typo cannot hide behind "no data yet",
 * and {@code increase()} sees the first event of a counter. Gauges read a source the owning component sets
 * later ({@code gauge…} methods); until then they read 0. Exposed at {@code /metrics} in Prometheus format
 * next to Vert.x's HTTP and JVM meters ({@link Registries} builds that registry).
 *
 * <p>Latencies and sizes are Prometheus histograms with fixed buckets (no client-side quantiles), so
 * {@code histogram_quantile} aggregates them across nodes. docs/metrics.md maps the seed's metric names
 * (R9) to these series and gives the PromQL for each; docker/prometheus and docker/grafana use them, and
 * {@code DashboardMetricsTest} checks that every name they use is registered here.
 *
 * <p>Meters with many label values are the exception: each value appears with its first event — the
 * open-ended {@code ax_bridge_refused_total{reason}}, and {@code ax_api_request_latency_seconds{operation,
 * status}} (every operation of the contract times every status class would put over a thousand
 * all-zero lines in each scrape) except the submissions answered 2xx, which the dashboard draws. No rule
 * uses them.
 */
public final class AxMetrics {
  /** Where a task is handed over: an HTTP target this node calls, or an executor over the bridge. */
  public enum Target {
    HTTP, EXECUTOR;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * How a hand-over ended ({@code ax_dispatch_total{outcome}}). HTTP: ACKED = the request was written to
   * the connection, ACK_TIMEOUT = {@code timeout_ms} passed before it could be, FAILED = never sent (URL
   * refused at send time, name not resolved, connection refused, the submitting key gone). Executor:
   * ACKED = the executor took it, REJECTED = it answered without taking it (no room), ACK_TIMEOUT = no
   * answer within {@code AX_ACK_TIMEOUT_MS}, FAILED = the push failed otherwise (inbox gone, bad answer).
   */
  public enum HandOver {
    ACKED, REJECTED, ACK_TIMEOUT, FAILED;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Lateness: 1 ms to 10 s in the 1-2.5-5 steps, plus the alert thresholds 2 s and 10 s, and 30 s, 60 s. */
  static final Duration[] DELAY_BUCKETS = millis(NodeFigures.DELAY_BOUNDS_MS);
  /** Round trips inside the node and to PostgreSQL: 0.5 ms to 5 s. */
  static final Duration[] ROUND_TRIP_BUCKETS = micros(500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000,
      250_000, 500_000, 1_000_000, 2_500_000, 5_000_000);
  /** Tasks per batch, up to AX_CLAIM_BATCH's and the ready queue's sizes. */
  static final double[] BATCH_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000};
  /**
   * Retries a task used (max_retry ≤ 10). Micrometer takes no bucket at 0, so 0.5 holds the tasks that
   * needed none: retry counts are whole numbers.
   */
  static final double[] RETRY_BUCKETS = {0.5, 1, 2, 3, 4, 5, 7, 10};

  private final MeterRegistry registry;

  // scheduling
  private final Map<Target, Timer> scheduleDelay = new EnumMap<>(Target.class);
  private final DistributionSummary scheduleBatchSize;
  private final Counter loaded;
  private final Timer claimLatency;
  private final Counter claimed;
  private final Source wheelDepth = new Source();

  // hand-over
  private final Map<Target, Map<HandOver, Counter>> dispatched = new EnumMap<>(Target.class);
  private final Map<Target, Timer> dispatchLatency = new EnumMap<>(Target.class);
  private final Timer executorBatchLatency;
  private final Timer executorBatchWriteLatency;
  private final DistributionSummary executorBatchSize;
  private final Source readyQueue = new Source();

  // execution
  private final Map<Target, Counter> executeSuccess = new EnumMap<>(Target.class);
  private final Map<Target, Counter> executeFailure = new EnumMap<>(Target.class);
  private final Map<Target, Counter> executeTimeout = new EnumMap<>(Target.class);
  private final Map<Target, Counter> failedTwice = new EnumMap<>(Target.class);
  private final DistributionSummary taskRetries;
  private final Counter retries;
  private final Counter lateResults;
  private final Map<String, Counter> attemptsLost = new ConcurrentHashMap<>();
  private final Counter outcomesDropped;
  private final Source outcomeBacklog = new Source();
  private final Counter rescuedRunning;
  private final Counter rescuedUnacked;
  private final Counter requeuedOverdue;

  // schedules and dependencies
  private final Counter occurrencesCreated;
  private final Counter occurrencesMisfired;
  private final Counter dependencySkips;
  private final Counter released;
  private final java.util.concurrent.atomic.AtomicLong webhookBacklog = new java.util.concurrent.atomic.AtomicLong();

  // built-in alerting
  private final Map<String, Counter> alertsSent = new HashMap<>();
  private final AtomicLong alertsFiring = new AtomicLong();
  /** How an alert message try ended ({@code ax_alerts_sent_total{outcome}}). */
  public static final List<String> ALERT_OUTCOMES = List.of("sent", "failed", "gave_up", "suppressed");

  // the node and the cluster
  private final AtomicLong leading = new AtomicLong();
  private final AtomicLong epoch = new AtomicLong();
  private final Counter termsAcquired;
  private final Counter termsEnded;
  private final Timer leaseRenewal;
  private final Map<String, Map<String, Timer>> apiRequests = new ConcurrentHashMap<>();
  /**
   * The operations whose answered requests ({@code status="2xx"}) are registered at start: operationIds of
   * openapi.yaml (OpenApiContractTest holds them to it, so a rename cannot leave a stale zero series).
   */
  public static final List<String> DASHBOARD_OPERATIONS = List.of("createTask", "createTaskBatch");
  private final Source clockOffsetMs = new Source();

  // executors and the bridge
  private final Map<String, AtomicLong> executors = new HashMap<>();
  private final Map<String, Counter> executorEvents = new ConcurrentHashMap<>();
  private final Map<String, Counter> executorRefused = new ConcurrentHashMap<>();
  private final Source bridgeUnauthenticated = new Source();
  private final Source bridgeAuthenticated = new Source();
  private final Source bridgeBufferedBytes = new Source();
  private final Source apiConnections = new Source();
  private final Source apiConnectionsRefused = new Source();

  /** Executor events the dispatch reports ({@code DispatchObserver}), registered at zero. */
  public static final List<String> EXECUTOR_EVENTS = List.of("registered", "suspect", "offline", "draining", "left",
      "dispatch_unanswered", "room_given_back", "health_check_paused", "ack_unread_after_pause");
  /** Executor messages the leader refuses, by kind. */
  public static final List<String> EXECUTOR_REFUSALS = List.of("heartbeat", "result");
  /** Why an attempt was given up on and fired again ({@link #recordAttemptsLost}). */
  public static final List<String> LOST_CAUSES = List.of("holder_left", "no_outcome");

  public AxMetrics(MeterRegistry registry) {
    this.registry = registry;

    for (Target t : Target.values()) {
      scheduleDelay.put(t, Timer.builder("ax_schedule_delay")
          .description("lateness at hand-over: HTTP request written, or dispatch acked by an executor, minus the "
              + "time the attempt was due (database clock)")
          .tag("target", t.tag()).serviceLevelObjectives(DELAY_BUCKETS).register(registry));
    }
    scheduleBatchSize = DistributionSummary.builder("ax_schedule_batch_size")
        .description("tasks per batch the wheel hands to dispatch (one claim statement each)")
        .serviceLevelObjectives(BATCH_BUCKETS).register(registry);
    loaded = Counter.builder("ax_loader_rows_total").description("rows loaded from PostgreSQL into memory")
        .register(registry);
    claimLatency = Timer.builder("ax_claim_latency").description("round trip of one batched, fenced claim statement")
        .serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry);
    claimed = Counter.builder("ax_claimed_total").description("tasks claimed (due, lease-fenced) for execution")
        .register(registry);
    gauge("ax_wheel_queue_depth", "tasks the leader holds in memory (timing wheel + delay queue); 0 on a standby",
        wheelDepth);

    for (Target t : Target.values()) {
      Map<HandOver, Counter> byOutcome = new EnumMap<>(HandOver.class);
      for (HandOver o : HandOver.values()) {
        if (t == Target.HTTP && o == HandOver.REJECTED) {
          continue; // an HTTP target has no way to refuse a request it did not receive
        }
        byOutcome.put(o, Counter.builder("ax_dispatch_total")
            .description("tasks handed over, by target and how the hand-over ended (acked = delivered)")
            .tag("target", t.tag()).tag("outcome", o.tag()).register(registry));
      }
      dispatched.put(t, byOutcome);
      dispatchLatency.put(t, Timer.builder("ax_dispatch_latency")
          .description("per task, from the claim (HTTP) or the DISPATCHING write (executor) to the hand-over: "
              + "request written, or dispatch acked")
          .tag("target", t.tag()).serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry));
    }
    executorBatchLatency = Timer.builder("ax_executor_batch_latency")
        .description("one executor dispatch batch: DISPATCHING write, push and ack")
        .serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry);
    executorBatchWriteLatency = Timer.builder("ax_executor_batch_write_latency")
        .description("the DISPATCHING write of one executor dispatch batch")
        .serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry);
    executorBatchSize = DistributionSummary.builder("ax_executor_batch_size")
        .description("tasks per executor dispatch batch").serviceLevelObjectives(BATCH_BUCKETS).register(registry);
    gauge("ax_executor_ready_queue_depth", "READY processor tasks waiting in the leader for executor capacity",
        readyQueue);

    for (Target t : Target.values()) {
      executeSuccess.put(t, executeCounter(t, "success"));
      executeFailure.put(t, executeCounter(t, "failure"));
      executeTimeout.put(t, executeCounter(t, "timeout"));
      failedTwice.put(t, Counter.builder("ax_task_failed_twice_total")
          .description("attempts that failed (or timed out) while their task was already on a retry: a task "
              + "failing twice in a row")
          .tag("target", t.tag()).register(registry));
    }
    taskRetries = DistributionSummary.builder("ax_task_retries")
        .description("retries used by each task that reached SUCCESS or FAILED")
        .serviceLevelObjectives(RETRY_BUCKETS).register(registry);
    retries = Counter.builder("ax_task_retry_total").description("retries scheduled after a failed attempt")
        .register(registry);
    lateResults = Counter.builder("ax_late_results_total")
        .description("outcomes refused because the task was no longer in flight in that attempt").register(registry);
    for (String cause : LOST_CAUSES) {
      attemptsLost.put(cause, attemptsLostCounter(cause));
    }
    outcomesDropped = Counter.builder("ax_outcomes_dropped_total")
        .description("call outcomes this node could not write")
        .register(registry);
    gauge("ax_outcome_backlog", "outcomes of this node's calls waiting to be written", outcomeBacklog);
    rescuedRunning = recoveryCounter("running_timed_out");
    rescuedUnacked = recoveryCounter("dispatch_unacked");
    requeuedOverdue = recoveryCounter("overdue_requeued");

    occurrencesCreated = Counter.builder("ax_schedule_occurrences_total")
        .description("occurrences of recurring schedules created (each an ordinary task)").register(registry);
    occurrencesMisfired = Counter.builder("ax_schedule_misfired_total")
        .description("due times of recurring schedules recorded as misfired instead of fired").register(registry);
    dependencySkips = Counter.builder("ax_dependency_skipped_total")
        .description("tasks SKIPPED because a dependency did not succeed (each has an alert event)").register(registry);
    released = Counter.builder("ax_released_total")
        .description("held tasks let go (dependencies met, overlap ended) announced to the leader's wheel")
        .register(registry);
    Gauge.builder("ax_webhook_backlog", webhookBacklog::get)
        .description("webhook notifications pending delivery (counted by the leader every 5 s)").register(registry);
    for (String outcome : new String[] {"delivered", "failed", "gave_up"}) {
      Counter.builder("ax_webhook_deliveries_total").tag("outcome", outcome)
          .description("webhook tries by outcome: delivered (2xx), failed (another try follows), gave_up (the last try failed)")
          .register(registry);
    }

    for (String outcome : ALERT_OUTCOMES) {
      alertsSent.put(outcome, Counter.builder("ax_alerts_sent_total").tag("outcome", outcome)
          .description("built-in alert messages by outcome: sent (2xx), failed (another try follows), gave_up "
              + "(the last try failed), suppressed (over AX_ALERT_MAX_PER_MINUTE; a summary follows)")
          .register(registry));
    }
    Gauge.builder("ax_alerts_firing", alertsFiring, AtomicLong::get)
        .description("built-in alerts firing cluster-wide, as this node last read them from PostgreSQL (take max over nodes)")
        .strongReference(true).register(registry);

    Gauge.builder("ax_leader", leading, AtomicLong::get)
        .description("1 while this node holds the leader lease, else 0").strongReference(true).register(registry);
    Gauge.builder("ax_leader_epoch", epoch, AtomicLong::get)
        .description("epoch of the leader term this node holds (0 while standby)").strongReference(true)
        .register(registry);
    termsAcquired = leaderChanges("acquired");
    termsEnded = leaderChanges("ended");
    leaseRenewal = Timer.builder("ax_lease_renewal_latency")
        .description("round trip of the leader's lease renewal (every ttl/3); a leader steps down when none is "
            + "confirmed within the TTL less its safety margin")
        .serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry);
    // The submissions answered, at zero from the start: the dashboard's API panels draw them before the first
    // request. The other operations and status classes appear with their first request (see above).
    for (String operation : DASHBOARD_OPERATIONS) {
      apiRequest(operation, "2xx");
    }
    Gauge.builder("ax_clock_offset", clockOffsetMs, s -> s.value() / 1000.0).baseUnit("seconds")
        .description("node wall clock minus database clock; alert above 0.05").strongReference(true)
        .register(registry);

    for (String state : List.of("registered", "live", "suspect", "draining", "offline")) {
      AtomicLong n = new AtomicLong();
      executors.put(state, n);
      Gauge.builder("ax_executors", n, AtomicLong::get)
          .description("executor sessions the leader knows, by state (offline: tasks still being settled)")
          .tag("state", state).strongReference(true).register(registry);
    }
    for (String event : EXECUTOR_EVENTS) {
      executorEvents.put(event, executorEventCounter(event));
    }
    for (String kind : EXECUTOR_REFUSALS) {
      executorRefused.put(kind, executorRefusedCounter(kind));
    }
    gauge("ax_bridge_connections", "open executor bridge connections", bridgeUnauthenticated, "state",
        "unauthenticated");
    gauge("ax_bridge_connections", "open executor bridge connections", bridgeAuthenticated, "state",
        "authenticated");
    gauge("ax_bridge_unauthenticated_buffered_bytes",
        "heap bytes of partial frames held by connections that have not authenticated", bridgeBufferedBytes);
    // Vert.x's HTTP-server metrics are off (AxNode.buildVertx): the API's connections are counted here
    gauge("ax_api_connections", "open API (HTTP) connections", apiConnections);
    io.micrometer.core.instrument.FunctionCounter.builder("ax_api_connections_refused", apiConnectionsRefused,
            Source::value)
        .description("API connections closed as they arrived because the node had its maximum open")
        .register(registry);
  }

  // ---- scheduling

  /** One webhook try: delivered, or failed (with retries left or for good). */
  public void recordWebhookTry(boolean delivered, int tryNumber) {
    String outcome = delivered ? "delivered" : tryNumber >= 3 ? "gave_up" : "failed";
    Counter.builder("ax_webhook_deliveries_total").tag("outcome", outcome)
        .description("webhook tries by outcome: delivered (2xx), failed (another try follows), gave_up (the last try failed)")
        .register(registry).increment();
  }

  /** Pending notifications (not delivered, tries left), as the leader last counted them. */
  public void recordWebhookBacklog(long pending) {
    webhookBacklog.set(pending);
  }

  public void gaugeWheelDepth(LongSupplier depth) {
    wheelDepth.set(depth);
  }

  public void recordLoaded(int rows) {
    loaded.increment(rows);
  }

  public void recordFiredBatch(int size) {
    scheduleBatchSize.record(size);
  }

  public void recordClaim(int claimedCount, long nanos) {
    claimed.increment(claimedCount);
    claimLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  // ---- hand-over

  /**
   * One task handed over: an HTTP request written, or a task an executor acked.
   *
   * @param lateMs          hand-over time minus the time the attempt was due, on the database clock
   * @param sinceClaimNanos since the claim (HTTP) or the DISPATCHING write (executor)
   */
  public void recordHandedOver(Target target, long lateMs, long sinceClaimNanos) {
    dispatched.get(target).get(HandOver.ACKED).increment();
    scheduleDelay.get(target).record(Math.max(0, lateMs), TimeUnit.MILLISECONDS);
    dispatchLatency.get(target).record(Math.max(0, sinceClaimNanos), TimeUnit.NANOSECONDS);
  }

  /** Tasks whose hand-over did not happen ({@code outcome} other than ACKED). */
  public void recordNotHandedOver(Target target, HandOver outcome, int tasks) {
    if (outcome == HandOver.ACKED) {
      throw new IllegalArgumentException("acked hand-overs are recorded with recordHandedOver");
    }
    Counter c = dispatched.get(target).get(outcome);
    if (c == null) {
      throw new IllegalArgumentException(target + " hand-overs cannot end " + outcome);
    }
    c.increment(tasks);
  }

  /**
   * One executor dispatch batch: write + push + ack, the DISPATCHING write alone, and its size (the
   * per-task overhead is their ratio; bench/ reads these).
   */
  public void recordExecutorBatch(int tasks, long nanos, long writeNanos) {
    executorBatchLatency.record(nanos, TimeUnit.NANOSECONDS);
    executorBatchWriteLatency.record(writeNanos, TimeUnit.NANOSECONDS);
    executorBatchSize.record(tasks);
  }

  public void gaugeReadyQueue(IntSupplier depth) {
    readyQueue.set(depth::getAsInt);
  }

  // ---- execution

  /** Outcomes the database accepted for {@code target}'s tasks. */
  public void recordOutcomes(Target target, OutcomeTally tally) {
    executeSuccess.get(target).increment(tally.successes());
    executeFailure.get(target).increment(tally.failures());
    executeTimeout.get(target).increment(tally.timeouts());
    failedTwice.get(target).increment(tally.failedAgain());
    for (int r : tally.terminalRetries()) {
      taskRetries.record(r);
    }
  }

  public void recordRetriesScheduled(int n) {
    retries.increment(n);
  }

  public void recordLateResults(int n) {
    lateResults.increment(n);
  }

  /**
   * Attempts given up on because their caller is gone: fired again as a new attempt. {@code holder_left}
   * counts calls whose node died with them in flight — the only calls ax makes twice.
   */
  public void recordAttemptsLost(String cause, int n) {
    attemptsLost.computeIfAbsent(cause, this::attemptsLostCounter).increment(n);
  }

  /** Outcomes of this node's calls it gave up writing (backlog full, or refused by the database for good). */
  public void recordOutcomesDropped(int n) {
    outcomesDropped.increment(n);
  }

  public void gaugeOutcomeBacklog(IntSupplier unwritten) {
    outcomeBacklog.set(unwritten::getAsInt);
  }

  public void recordRescuedRunning(int n) {
    rescuedRunning.increment(n);
  }

  public void recordRescuedUnacked(int n) {
    rescuedUnacked.increment(n);
  }

  public void recordRequeuedOverdue(int n) {
    requeuedOverdue.increment(n);
  }

  // ---- schedules and dependencies

  public void recordOccurrences(int created, long misfired) {
    occurrencesCreated.increment(created);
    occurrencesMisfired.increment(misfired);
  }

  public void recordDependencySkips(long n) {
    dependencySkips.increment(n);
  }

  public void recordReleased(int n) {
    released.increment(n);
  }

  // ---- the API

  /**
   * One API request answered (or given up: {@code status} "unanswered"), {@code nanos} from its headers
   * to the end of its response. {@code operation} is the contract's operationId, or "none" for a request
   * answered before a route was chosen (refused on its headers) or matching none.
   */
  public void recordApiRequest(String operation, String status, long nanos) {
    apiRequest(operation, status).record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Looked up by operation, then status class: plain reads once both exist (a request allocates nothing). */
  private Timer apiRequest(String operation, String status) {
    Map<String, Timer> byStatus = apiRequests.get(operation);
    if (byStatus == null) {
      byStatus = apiRequests.computeIfAbsent(operation, k -> new ConcurrentHashMap<>());
    }
    Timer timer = byStatus.get(status);
    return timer != null ? timer : byStatus.computeIfAbsent(status, k -> Timer.builder("ax_api_request_latency")
        .description("an API request, from its headers to the end of its response, by the contract's "
            + "operationId and status class")
        .tags("operation", operation, "status", status)
        .serviceLevelObjectives(ROUND_TRIP_BUCKETS).register(registry));
  }

  // ---- the node and the cluster

  /** A renewal answered (confirmed or refused), {@code nanos} after it was sent. */
  public void recordLeaseRenewal(long nanos) {
    leaseRenewal.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** This node's term changed: leading in {@code termEpoch}, or standby. */
  public void recordLeaderTerm(boolean isLeader, long termEpoch) {
    long was = leading.getAndSet(isLeader ? 1 : 0);
    epoch.set(isLeader ? termEpoch : 0);
    if (isLeader) {
      termsAcquired.increment(); // a new term, even straight after another of this node's
    } else if (was == 1) {
      termsEnded.increment();
    }
  }

  public void gaugeClockOffset(LongSupplier offsetMs) {
    clockOffsetMs.set(offsetMs);
  }

  // ---- built-in alerting

  /** One alert message try, or a message held back by the per-minute cap. */
  public void recordAlertMessage(String outcome) {
    Counter c = alertsSent.get(outcome);
    if (c == null) {
      throw new IllegalArgumentException("unknown alert outcome " + outcome);
    }
    c.increment();
  }

  public void recordAlertsFiring(int firing) {
    alertsFiring.set(firing);
  }

  /**
   * This node's figures as totals since it started, for the alert rules the leader evaluates: what
   * the Prometheus rules read from the same meters.
   */
  public NodeFigures alertFigures(String nodeId) {
    long success = 0;
    long failure = 0;
    long timeout = 0;
    Map<String, Long> twice = new HashMap<>();
    long[] buckets = new long[NodeFigures.DELAY_BOUNDS_MS.length + 1];
    for (Target t : Target.values()) {
      success += (long) executeSuccess.get(t).count();
      failure += (long) executeFailure.get(t).count();
      timeout += (long) executeTimeout.get(t).count();
      twice.put(t.tag(), (long) failedTwice.get(t).count());
      Timer delay = scheduleDelay.get(t);
      long below = 0;
      io.micrometer.core.instrument.distribution.CountAtBucket[] counts = delay.takeSnapshot().histogramCounts();
      for (int i = 0; i < counts.length && i < NodeFigures.DELAY_BOUNDS_MS.length; i++) {
        long cumulative = (long) counts[i].count();
        buckets[i] += cumulative - below;
        below = cumulative;
      }
      buckets[NodeFigures.DELAY_BOUNDS_MS.length] += Math.max(0, delay.count() - below);
    }
    return new NodeFigures(nodeId, success, failure, timeout, twice,
        (long) executorEvents.get("offline").count(), buckets, clockOffsetMs.value(), webhookBacklog.get());
  }

  // ---- executors and the bridge

  public void recordExecutors(ExecutorRegistry.Census census) {
    executors.get("registered").set(census.registered());
    executors.get("live").set(census.live());
    executors.get("suspect").set(census.suspect());
    executors.get("draining").set(census.draining());
    executors.get("offline").set(census.offline());
  }

  public void recordExecutorEvent(String event) {
    executorEvents.computeIfAbsent(event, this::executorEventCounter).increment();
  }

  /** A heartbeat or result from a session the leader no longer accepts (OFFLINE, replaced, stale). */
  public void recordExecutorRefused(String kind, int n) {
    executorRefused.computeIfAbsent(kind, this::executorRefusedCounter).increment(n);
  }

  public void recordBridgeRefusal(String reason) {
    Counter.builder("ax_bridge_refused_total").description("bridge frames or connections refused")
        .tag("reason", reason).register(registry).increment();
  }

  /**
   * The bridge's connections by state, and the heap bytes of partial frames the unauthenticated ones
   * hold (bounded by {@code AX_BRIDGE_UNAUTHENTICATED_BUFFER_BYTES}).
   */
  public void gaugeBridge(IntSupplier unauthenticated, IntSupplier authenticated, LongSupplier unauthenticatedBytes) {
    bridgeUnauthenticated.set(unauthenticated::getAsInt);
    bridgeAuthenticated.set(authenticated::getAsInt);
    bridgeBufferedBytes.set(unauthenticatedBytes);
  }

  /** The API's open connections, and those refused at the limit (see ConnectionLimits). */
  public void gaugeApiConnections(IntSupplier open, LongSupplier refused) {
    apiConnections.set(open::getAsInt);
    apiConnectionsRefused.set(refused);
  }

  // ---- registration helpers

  private Counter executeCounter(Target t, String outcome) {
    return Counter.builder("ax_execute_total").description("attempts whose outcome was recorded, by target and outcome")
        .tag("target", t.tag()).tag("outcome", outcome).register(registry);
  }

  private Counter recoveryCounter(String kind) {
    return Counter.builder("ax_recovery_total").description("tasks the recovery scan rescued or re-queued, by kind")
        .tag("kind", kind).register(registry);
  }

  private Counter leaderChanges(String change) {
    return Counter.builder("ax_leader_changes_total")
        .description("leader terms this node started (acquired) or ended (stepped down, resigned)")
        .tag("change", change).register(registry);
  }

  private Counter attemptsLostCounter(String cause) {
    return Counter.builder("ax_attempts_lost_total")
        .description("attempts whose caller died or never reported; the task was fired again")
        .tag("cause", cause).register(registry);
  }

  private Counter executorEventCounter(String event) {
    return Counter.builder("ax_executor_events_total")
        .description("executor registrations, health changes and unanswered dispatches").tag("event", event)
        .register(registry);
  }

  private Counter executorRefusedCounter(String kind) {
    return Counter.builder("ax_executor_refused_total").description("executor messages refused").tag("kind", kind)
        .register(registry);
  }

  private void gauge(String name, String description, Source source, String... tags) {
    Gauge.builder(name, source, Source::value).description(description).tags(tags).strongReference(true)
        .register(registry);
  }

  private static Duration[] millis(long... ms) {
    Duration[] d = new Duration[ms.length];
    for (int i = 0; i < ms.length; i++) {
      d[i] = Duration.ofMillis(ms[i]);
    }
    return d;
  }

  private static Duration[] micros(long... us) {
    Duration[] d = new Duration[us.length];
    for (int i = 0; i < us.length; i++) {
      d[i] = Duration.ofNanos(us[i] * 1_000);
    }
    return d;
  }

  /** A gauge's value, read from whatever its owner set; 0 until then. */
  private static final class Source {
    private volatile LongSupplier supplier = () -> 0;

    void set(LongSupplier s) {
      supplier = s;
    }

    double value() {
      return supplier.getAsLong();
    }
  }
}
