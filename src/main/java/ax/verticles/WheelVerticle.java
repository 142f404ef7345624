package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.SubmitMessage;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.store.ScheduleStore;
import ax.wheel.ScheduledTask;
import ax.wheel.TieredSchedule;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Owns the in-memory tiers ({@link TieredSchedule}: timing wheel + delay queue); nothing else touches
 * them. While this node leads it
 * <ul>
 *   <li>loads the coming window from PostgreSQL with a cursor over the (trigger_time, status) index
 *       (tier 3 → tiers 1/2), as far as the memory cap allows;</li>
 *   <li>takes tasks sent to {@link Addresses#WHEEL_SCHEDULE} (new submissions inside the window,
 *       retries, recovered tasks) and cancellations;</li>
 *   <li>sleeps until the next non-empty bucket (one timer, no idle ticking) and sends what is due to
 *       {@link Addresses#DISPATCH_DUE} in batches.</li>
 * </ul>
 * Time is the {@link DbClock}: database time advanced by the monotonic clock, so "due" means due for
 * the database. The schedule runs {@code claimLeadMs} ahead of it ({@link #wheelNow}): a task leaves the
 * wheel that long before its trigger time, so its claim commits before the instant and the dispatcher
 * releases it from memory at the exact millisecond (the claim's round trip off the lateness path). A task refused because memory is full stays in PostgreSQL and the cursor is rewound to
 * it, so it is loaded once room frees up — nothing is dropped.
 *
 * <p><b>A warm standby.</b> A standby keeps loading the same window into a copy it never fires (it drops
 * what fell more than {@value #STANDBY_KEEP_MS} ms behind: the leader has it). When it becomes leader it
 * fires what that copy holds at once, while the loader reads the whole window again from the oldest
 * pending task (overdue ones first; a task held already is replaced, not doubled) to take in what the
 * copy missed: tasks submitted behind its cursor, the old leader's unfinished backlog. Without the copy
 * a successor fired nothing until its first page came back: tasks due just after a graceful hand-over
 * started ~230 ms late (RollingRestartIT). A copy fuller than half the memory cap is dropped instead,
 * so future tasks never take the room overdue ones need. Firing a task the old leader already took is
 * harmless: the claim only takes DELAYED rows.
 */
public final class WheelVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(WheelVerticle.class.getName());
  /** Every window load fails while the database is down: one line per 10 s. */
  private final ThrottledWarning loadFailures = new ThrottledWarning(LOG);
  private static final long MAX_SLEEP_MS = 1_000;
  /** A claim is one statement; past this the hand-over goes on without its answer. */
  private static final long HAND_OVER_CLAIM_TIMEOUT_MS = 3_000;
  /** A standby's copy drops tasks due longer ago than this; a successor fires the rest at once. */
  static final long STANDBY_KEEP_MS = 2_000;

  /**
   * @param tickMs        wheel tick
   * @param wheelSize     slots per wheel level
   * @param wheelWindowMs tier 1 horizon: tasks due sooner sit in the wheel
   * @param loadWindowMs  tier 2 horizon: the loader reads this far ahead
   * @param loadIntervalMs how often the loader reads
   * @param loadBatch     rows per loader page
   * @param memoryCap     tasks held in tiers 1 and 2 together
   * @param claimBatch    due tasks per batch sent to dispatch
   * @param claimLeadMs   how long before their trigger time tasks go to dispatch, which claims them then
   *                      and releases each at its trigger time (0: at the trigger time)
   */
  public record Settings(long tickMs, int wheelSize, long wheelWindowMs, long loadWindowMs, long loadIntervalMs,
                         int loadBatch, int memoryCap, int claimBatch, long claimLeadMs) {
    public Settings {
      if (tickMs < 1 || wheelSize < 8 || wheelWindowMs < tickMs || loadWindowMs < wheelWindowMs || loadIntervalMs < 1
          || loadBatch < 1 || memoryCap < 1 || claimBatch < 1 || claimLeadMs < 0 || claimLeadMs >= wheelWindowMs) {
        throw new IllegalArgumentException("wheel settings out of range: " + this);
      }
    }
  }

  private final ScheduleStore store;
  private final DbClock clock;
  private final Settings tuning;
  private final AxMetrics metrics;
  /**
   * Claiming ahead, the wheel need not wake for every millisecond that has a task: it wakes on multiples
   * of this (a tick, at most half the lead) and hands out everything due by then in one batch, so a steady
   * stream of staggered tasks makes one claim per quantum instead of one per millisecond, and each claim
   * still has at least lead − quantum to commit before its tasks' trigger times.
   */
  private final long fireQuantumMs;

  private TieredSchedule schedule;
  private long cursorTimeMs;
  private long cursorTaskId;
  private boolean loading;
  /** Bumped whenever the role changes: a load answered after the change is dropped. */
  private long generation;
  private long wakeTimerId = -1;
  private long wakeAtMs = Long.MAX_VALUE;
  /** Cluster-wide while leading: submissions accepted by other nodes (see {@link SubmitMessage}). */
  private MessageConsumer<JsonArray> submitConsumer;

  public WheelVerticle(ScheduleStore store, DbClock clock, Settings tuning, AxMetrics metrics) {
    this.store = store;
    this.clock = clock;
    this.tuning = tuning;
    this.metrics = metrics;
    this.fireQuantumMs = Math.max(1, Math.min(tuning.tickMs(), tuning.claimLeadMs() / 2));
  }

  @Override
  protected Future<?> startRole() {
    var bus = vertx.eventBus();
    bus.<TaskBatch>localConsumer(Addresses.WHEEL_SCHEDULE, msg -> onSchedule(msg.body().tasks()));
    bus.<Long>localConsumer(Addresses.WHEEL_CANCEL, msg -> onCancel(msg.body()));
    bus.<Void>localConsumer(Addresses.WHEEL_STATS, msg -> msg.reply(stats()));
    bus.<Long>localConsumer(Addresses.WHEEL_HAND_OVER, this::handOver);
    // the leader's depth only: a standby's copy is not a queue (summed over nodes it would count twice)
    metrics.gaugeWheelDepth(() -> schedule == null || !leading() ? 0 : schedule.size());
    schedule = newSchedule();
    vertx.setPeriodic(tuning.loadIntervalMs(), id -> {
      if (!leading()) {
        dropWhatTheLeaderHas();
      }
      load();
    });
    load();
    return Future.succeededFuture();
  }

  private TieredSchedule newSchedule() {
    return new TieredSchedule(tuning.tickMs(), tuning.wheelSize(), tuning.wheelWindowMs(), tuning.memoryCap(),
        wheelNow());
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    generation++;
    int warm = schedule.size();
    if (warm > tuning.memoryCap() / 2) {
      schedule = newSchedule();
      warm = 0;
    }
    // Read everything pending again, from the oldest, as far as the cap allows (see the class comment).
    cursorTimeMs = 0;
    cursorTaskId = 0;
    loading = false;
    submitConsumer = vertx.eventBus().consumer(Addresses.WHEEL_SUBMIT,
        msg -> onSchedule(SubmitMessage.decode(msg.body())));
    int held = warm;
    // said at INFO only when it matters: a takeover with work in hand (a first start stays a few lines)
    LOG.log(held > 0 ? Level.INFO : Level.FINE,
        () -> "leading: firing from a warm copy of " + held + " tasks while the window is read again");
    arm();
    load();
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    generation++;
    loading = false;
    submitConsumer.unregister();
    cancelWake();
    LOG.info("standby: the in-memory tiers stay as a warm copy that fires nothing; PostgreSQL keeps every task");
  }

  /**
   * A graceful stop's last act as leader: everything due within the horizon goes to be claimed now
   * (HTTP targets become RUNNING and this node calls them at their trigger times during its drain), so
   * the tasks due while the lease passes to a successor and it starts are not late. Answers with how
   * many tasks were handed to the claims, once every claim answered.
   */
  private void handOver(Message<Long> msg) {
    if (!leading()) {
      msg.reply(0);
      return;
    }
    long horizonMs = msg.body();
    DeliveryOptions options = LocalCodec.localOnly().setSendTimeout(HAND_OVER_CLAIM_TIMEOUT_MS)
        .addHeader(Addresses.LEAD_MS_HEADER, Long.toString(horizonMs));
    List<Future<?>> claims = new ArrayList<>();
    int fired = 0;
    List<ScheduledTask> due;
    while (!(due = schedule.pollDue(clock.nowMillis() + horizonMs, tuning.claimBatch())).isEmpty()) {
      fired += due.size();
      claims.add(vertx.eventBus().request(Addresses.DISPATCH_HAND_OVER, new TaskBatch(due), options));
    }
    int handed = fired;
    Future.join(claims).onComplete(ar -> msg.reply(handed));
  }

  /** A standby's copy: what fell {@link #STANDBY_KEEP_MS} behind is the leader's business, not ours. */
  private void dropWhatTheLeaderHas() {
    schedule.pollDue(clock.nowMillis() - STANDBY_KEEP_MS, Integer.MAX_VALUE);
  }

  private void onSchedule(List<ScheduledTask> tasks) {
    if (!leading()) {
      return; // not the leader: the leader's loader (or a future leader's re-read) finds them
    }
    long now = wheelNow();
    for (ScheduledTask t : tasks) {
      if (schedule.add(t, now) == TieredSchedule.Admission.REFUSED_FULL) {
        rewindTo(t);
      }
    }
    arm();
  }

  private void onCancel(long taskId) {
    if (schedule.cancel(taskId) && leading()) {
      arm();
    }
  }

  /** Makes the loader pass over {@code t} again (it was refused for lack of room). */
  private void rewindTo(ScheduledTask t) {
    if (t.triggerTimeMs() < cursorTimeMs
        || (t.triggerTimeMs() == cursorTimeMs && t.taskId() <= cursorTaskId)) {
      cursorTimeMs = t.triggerTimeMs();
      cursorTaskId = t.taskId() - 1;
    }
  }

  private void load() {
    if (loading) {
      return;
    }
    int limit = Math.min(tuning.loadBatch(), schedule.freeCapacity());
    if (limit <= 0) {
      return;
    }
    loading = true;
    long horizon = clock.nowMillis() + tuning.loadWindowMs();
    long loadingFor = generation;
    store.loadPending(cursorTimeMs, cursorTaskId, horizon, limit).onComplete(ar -> {
      if (loadingFor != generation) {
        return; // the role changed meanwhile, and with it the cursor: the new role reads for itself
      }
      loading = false;
      if (ar.failed()) {
        // a standby's copy is a convenience (and its pool closes under it when the node stops): quiet there
        if (leading()) {
          loadFailures.log("loading the next window failed; retrying on the next interval", ar.cause());
        } else {
          LOG.log(Level.FINE, "loading the next window failed; retrying on the next interval", ar.cause());
        }
        return;
      }
      List<ScheduledTask> rows = ar.result();
      long now = wheelNow();
      boolean refused = false;
      for (ScheduledTask t : rows) {
        if (schedule.add(t, now) == TieredSchedule.Admission.REFUSED_FULL) {
          refused = true;
          break;
        }
        cursorTimeMs = t.triggerTimeMs();
        cursorTaskId = t.taskId();
      }
      if (leading()) {
        metrics.recordLoaded(rows.size());
        arm();
      }
      if (!refused && rows.size() == limit) {
        vertx.runOnContext(v -> load()); // more in this window: keep going
      }
    });
  }

  /** The schedule's time: the database's, {@code claimLeadMs} ahead (see the class comment). */
  private long wheelNow() {
    return clock.nowMillis() + tuning.claimLeadMs();
  }

  /** Sets the single wake-up timer for the earliest non-empty bucket, if earlier than the current one. */
  private void arm() {
    if (!leading()) {
      return;
    }
    long next = schedule.nextWakeupMs();
    if (next == Long.MAX_VALUE) {
      return;
    }
    long now = wheelNow();
    // quantised only while the lead is whole; what is already inside it (just submitted) goes at once
    long at = Math.min(fireQuantumMs > 1 && next > now ? -Math.floorDiv(-next, fireQuantumMs) * fireQuantumMs : next,
        now + MAX_SLEEP_MS);
    if (wakeTimerId >= 0 && at >= wakeAtMs) {
      return;
    }
    cancelWake();
    wakeAtMs = at;
    wakeTimerId = vertx.setTimer(Math.max(1, at - now), id -> {
      wakeTimerId = -1;
      wakeAtMs = Long.MAX_VALUE;
      fire();
    });
  }

  private void cancelWake() {
    if (wakeTimerId >= 0) {
      vertx.cancelTimer(wakeTimerId);
      wakeTimerId = -1;
      wakeAtMs = Long.MAX_VALUE;
    }
  }

  private void fire() {
    if (!leading()) {
      return;
    }
    long now = wheelNow();
    int before = schedule.size();
    while (true) {
      List<ScheduledTask> due = schedule.pollDue(now, tuning.claimBatch());
      if (due.isEmpty()) {
        break;
      }
      metrics.recordFiredBatch(due.size());
      vertx.eventBus().send(Addresses.DISPATCH_DUE, new TaskBatch(due), LocalCodec.localOnly());
    }
    arm();
    if (before >= tuning.memoryCap() && !schedule.isFull()) {
      load(); // room again: pull what the cap held back
    }
  }

  private JsonObject stats() {
    return new JsonObject().put("leader", leading()).put("held", schedule.size()).put("wheel", schedule.wheelSize())
        .put("delay_queue", schedule.delayQueueSize()).put("capacity", tuning.memoryCap())
        .put("loader_cursor_ms", cursorTimeMs);
  }
}
