package ax.wheel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The in-memory tiers of R2: decides, for the tasks it holds, which are due now — to the
 * millisecond, in priority order — and when to look again. PostgreSQL (tier 3) holds every task; this
 * class holds the near future of some of them, and is rebuilt from the database after a restart.
 *
 * <ul>
 *   <li><b>Tier 1, the {@link TimingWheel}</b>, holds tasks due within {@code wheelWindowMs}. The wheel
 *       works in ticks and hands an entry out when its tick starts, up to one tick early.</li>
 *   <li><b>Tier 2, a delay queue</b> (a heap by trigger time), holds tasks further out. They move into
 *       the wheel when they come within the window, so the wheel stays small and its overflow levels
 *       shallow however far ahead the loader reads.</li>
 *   <li><b>The imminent heap</b> receives what the wheel hands out early and any task added when
 *       already due. It is ordered by trigger time, then priority (higher first), then task id, and
 *       {@link #pollDue} takes from it only tasks whose trigger time has arrived: the wheel's tick sets
 *       how often the driver wakes, never when a task is released.</li>
 * </ul>
 *
 * <p>An index by task id makes {@code add}, {@code cancel} and {@code contains} O(1) in every tier:
 * the wheel cancels natively; the two heaps drop cancelled entries lazily (see {@link LazyHeap}).
 * Adding a task id that is already held replaces it wherever it is, so a task is held at most once.
 *
 * <p><b>Capacity.</b> {@code capacity} bounds the tasks held across all tiers. When full, {@link #add}
 * answers {@link Admission#REFUSED_FULL}: the task stays in PostgreSQL and the loader brings it in
 * later, once {@link #pollDue} has made room. Nothing is dropped, and memory is bounded however large
 * a burst is.
 *
 * <p>Not thread-safe: one owner (the wheel's verticle) calls every method, and passes the time in.
 */
public final class TieredSchedule {

  /** Result of {@link #add}. */
  public enum Admission {
    /** The task was not held before and now is. */
    ADDED,
    /** The task was already held; the new version replaced the old one. */
    REPLACED,
    /** The schedule is at capacity; the task was not taken and must stay in the database. */
    REFUSED_FULL
  }

  /** Where a held task currently is; {@code REMOVED} marks dead copies left in the lazy heaps. */
  private enum Tier { IMMINENT, WHEEL, DELAYED, REMOVED }

  /** A task plus its tier. A fresh one per {@code add}, so a replaced task's stale heap copy is dead. */
  private static final class Held {
    final ScheduledTask task;
    Tier tier;

    Held(ScheduledTask task) {
      this.task = task;
    }
  }

  private static final Comparator<Held> DUE_ORDER = Comparator
      .comparingLong((Held held) -> held.task.triggerTimeMs())
      .thenComparing(held -> held.task.priority(), Comparator.reverseOrder())
      .thenComparingLong(held -> held.task.taskId());

  private final long wheelWindowMs;
  private final int capacity;
  private final Map<Long, Held> index = new HashMap<>();
  private final TimingWheel<Held> wheel;
  private final LazyHeap<Held> delayed =
      new LazyHeap<>(Comparator.comparingLong((Held held) -> held.task.triggerTimeMs()),
          held -> held.tier == Tier.DELAYED);
  private final LazyHeap<Held> imminent = new LazyHeap<>(DUE_ORDER, held -> held.tier == Tier.IMMINENT);

  /**
   * @param tickMs        the wheel's level-0 tick
   * @param wheelSize     buckets per wheel level
   * @param wheelWindowMs tasks due within this much of now go into the wheel, later ones into the
   *                      delay queue; at least 0
   * @param capacity      most tasks held across all tiers; at least 1
   * @param startMs       the wheel's initial time
   */
  public TieredSchedule(long tickMs, int wheelSize, long wheelWindowMs, int capacity, long startMs) {
    if (wheelWindowMs < 0) {
      throw new IllegalArgumentException("wheelWindowMs must not be negative, was " + wheelWindowMs);
    }
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
    this.wheel = new TimingWheel<>(tickMs, wheelSize, startMs);
    this.wheelWindowMs = wheelWindowMs;
    this.capacity = capacity;
  }

  /**
   * Takes a task into the tier that fits its trigger time. A task id already held is replaced
   * wherever it is (this needs no free capacity); a new one is refused when the schedule is full.
   * A task already due is accepted and returned by the next {@link #pollDue}.
   */
  public Admission add(ScheduledTask task, long nowMs) {
    Objects.requireNonNull(task, "task");
    boolean replacing = cancel(task.taskId());
    if (!replacing && isFull()) {
      return Admission.REFUSED_FULL;
    }
    Held held = new Held(task);
    index.put(task.taskId(), held);
    admit(held, nowMs);
    return replacing ? Admission.REPLACED : Admission.ADDED;
  }

  /** Removes the task from whichever tier holds it; returns whether it was held. */
  public boolean cancel(long taskId) {
    Held held = index.remove(taskId);
    if (held == null) {
      return false;
    }
    Tier was = held.tier;
    held.tier = Tier.REMOVED;
    switch (was) {
      case WHEEL -> wheel.cancel(taskId);
      case DELAYED -> delayed.discarded();
      case IMMINENT -> imminent.discarded();
      default -> throw new IllegalStateException("task " + taskId + " is indexed but in tier " + was);
    }
    return true;
  }

  public boolean contains(long taskId) {
    return index.containsKey(taskId);
  }

  /**
   * Returns up to {@code max} tasks whose trigger time is at or before {@code nowMs}, ordered by
   * trigger time, then priority (higher first), then task id, and stops holding them. Due tasks
   * beyond {@code max} stay for the next call. A task is never returned before its trigger time.
   */
  public List<ScheduledTask> pollDue(long nowMs, int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must not be negative, was " + max);
    }
    promote(nowMs);
    wheel.advance(nowMs, expired -> moveToImminent(expired.value()));
    List<ScheduledTask> due = new ArrayList<>(Math.min(max, imminent.size()));
    Held head;
    while (due.size() < max && (head = imminent.peek()) != null && head.task.triggerTimeMs() <= nowMs) {
      imminent.poll();
      head.tier = Tier.REMOVED;
      index.remove(head.task.taskId());
      due.add(head.task);
    }
    return due;
  }

  /**
   * The earliest time at which {@link #pollDue} can make progress: the next imminent task's
   * trigger time, the wheel's next bucket, or the moment the delay queue's head enters the wheel
   * window, whichever comes first; {@code Long.MAX_VALUE} when nothing is held. Never later than any
   * held task's trigger time, and — once {@code pollDue(now)} has returned everything due — later
   * than {@code now}, so a driver sleeping until this time neither misses a task nor spins.
   */
  public long nextWakeupMs() {
    long wakeup = wheel.nextExpirationMs();
    Held soonest = imminent.peek();
    if (soonest != null) {
      wakeup = Math.min(wakeup, soonest.task.triggerTimeMs());
    }
    Held furthest = delayed.peek();
    if (furthest != null) {
      wakeup = Math.min(wakeup, saturatedAdd(furthest.task.triggerTimeMs(), -wheelWindowMs));
    }
    return wakeup;
  }

  /** Tasks held across all tiers. */
  public int size() {
    return index.size();
  }

  /** Tasks currently in the timing wheel (tier 1). */
  public int wheelSize() {
    return wheel.size();
  }

  /** Tasks currently in the delay queue (tier 2). */
  public int delayQueueSize() {
    return delayed.size();
  }

  public int freeCapacity() {
    return capacity - index.size();
  }

  public boolean isFull() {
    return index.size() >= capacity;
  }

  /** Moves delay-queue tasks that have come within the wheel window into the wheel (or imminent). */
  private void promote(long nowMs) {
    long horizon = saturatedAdd(nowMs, wheelWindowMs);
    Held head;
    while ((head = delayed.peek()) != null && head.task.triggerTimeMs() <= horizon) {
      delayed.poll();
      admit(head, nowMs);
    }
  }

  private void admit(Held held, long nowMs) {
    long trigger = held.task.triggerTimeMs();
    if (trigger <= nowMs) {
      moveToImminent(held);
    } else if (trigger <= saturatedAdd(nowMs, wheelWindowMs)) {
      held.tier = Tier.WHEEL;
      wheel.schedule(held.task.taskId(), trigger, held);
    } else {
      held.tier = Tier.DELAYED;
      delayed.add(held);
    }
  }

  private void moveToImminent(Held held) {
    held.tier = Tier.IMMINENT;
    imminent.add(held);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow happened exactly when both operands share a sign that the sum does not.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }
}
