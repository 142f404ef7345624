package ax.wheel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * A hierarchical timing wheel: schedule and cancel in O(1), and a driver that sleeps until the next
 * non-empty bucket instead of ticking through empty ones. It follows the design of Kafka's
 * {@code TimingWheel} + {@code SystemTimer}, made pure: it owns no thread and reads no clock; the
 * owner tells it the time through {@link #advance}. It is not thread-safe; one owner drives it.
 *
 * <h2>Levels and buckets</h2>
 * Level 0 is a ring of {@code wheelSize} buckets, each covering {@code tickMs} milliseconds, so the
 * level spans {@code interval = tickMs × wheelSize}. Each bucket is a doubly-linked list of entries.
 * An entry whose deadline falls within the level's span goes into the bucket of its tick:
 * {@code slot = (deadline / tickMs) mod wheelSize}; that bucket's <em>expiration</em> is the start of
 * the tick, {@code (deadline / tickMs) × tickMs}. Adding is a list append: O(1).
 *
 * <h2>Overflow levels</h2>
 * A deadline beyond level 0's span goes to an overflow level, created on first need, whose tick is
 * the whole span of the level below: level n has tick {@code tickMs × wheelSize^n}. With a 10 ms tick
 * and 512 buckets, level 0 spans 5.12 s, level 1 about 44 min, level 2 about 15 days, and so on, so a
 * handful of levels holds any deadline; a level whose span would not fit in a {@code long} takes the
 * rest. Every level keeps its own "current tick", the wheel's time rounded down to its tick.
 *
 * <h2>The queue of buckets</h2>
 * When a bucket receives its first entry it is put in a priority queue ordered by expiration. The
 * queue holds buckets, not entries: a burst of 50 000 tasks due in the same tick is one queue element.
 * Its head is therefore the earliest moment anything can happen, which {@link #nextExpirationMs()}
 * reports. The driver sets one timer for that moment and sleeps; an empty wheel, or one whose only
 * entry is hours away, costs no wake-ups at all. Ticking every {@code tickMs} would spend most of its
 * time visiting empty slots, and would make the cost grow with idle time rather than with work.
 *
 * <h2>Advancing and cascading</h2>
 * {@link #advance(long, Consumer)} pops every bucket whose expiration is at or before the given time,
 * in expiration order. For each one it first moves every level's current tick to that expiration, then
 * re-inserts the bucket's entries from the top: an entry that is now within level 0's current tick is
 * <em>due</em> and goes to the sink; any other entry lands in a finer level than before, because the
 * coarser bucket's span has become the current span of the level below. A level-1 bucket therefore
 * splits into level-0 buckets; those that have already started are popped by the same loop. This is
 * the cascade: an entry moves down at most once per level, so its total cost is O(levels), a small
 * constant. Entries are handed out when their level-0 bucket <em>starts</em>, i.e. up to one tick
 * before their deadline; the caller holds them until the exact millisecond (see
 * {@link TieredSchedule}).
 *
 * <h2>Why a slot is never confused with a later lap</h2>
 * Each level only accepts deadlines within one span of its current tick, so the buckets waiting on a
 * level stand for distinct slots. And the wheel's time moves forward only after every bucket up to
 * that time has been popped, so no bucket from an earlier lap is still waiting when its slot is
 * reused.
 *
 * <h2>Cancel and replace</h2>
 * A hash map from key to entry finds the entry; unlinking it from its bucket is O(1). A bucket left
 * empty stays in the queue until it reaches the head, where {@link #nextExpirationMs()} or
 * {@link #advance} drops it: cheaper than an O(n) removal from the heap, and it cannot cause an early
 * hand-out because an empty bucket has nothing to hand out. Scheduling a key that is already present
 * first removes the old entry, so a key is in the wheel at most once and each entry leaves it exactly
 * once: handed to the sink, or cancelled.
 *
 * <h2>Late and past deadlines</h2>
 * A deadline within the current tick, or already past, is still accepted: it goes into the current
 * tick's bucket, whose expiration is at or before the wheel's time, so the next {@code advance} (even
 * one given the same time) hands it out. Time given to {@code advance} never moves backwards: an
 * earlier time is treated as the current one.
 *
 * @param <T> the value carried by each entry
 */
public final class TimingWheel<T> {

  /** An entry leaving the wheel because its level-0 bucket has started. */
  public record Expired<T>(long key, long deadlineMs, T value) {
  }

  private final int wheelSize;
  /** Level 0 first; coarser levels appended on demand. */
  private final List<Level> levels = new ArrayList<>();
  private final Map<Long, WheelEntry<T>> entries = new HashMap<>();
  /** Buckets holding (or recently holding) entries, earliest expiration first. */
  private final PriorityQueue<WheelBucket<T>> queue =
      new PriorityQueue<>(Comparator.comparingLong(WheelBucket::expirationMs));
  /** The latest time this wheel has been told; never decreases. */
  private long timeMs;

  /**
   * @param tickMs    width of a level-0 bucket, at least 1
   * @param wheelSize buckets per level, at least 2
   * @param startMs   the wheel's initial time
   */
  public TimingWheel(long tickMs, int wheelSize, long startMs) {
    if (tickMs < 1) {
      throw new IllegalArgumentException("tickMs must be at least 1, was " + tickMs);
    }
    if (wheelSize < 2) {
      throw new IllegalArgumentException("wheelSize must be at least 2, was " + wheelSize);
    }
    this.wheelSize = wheelSize;
    this.timeMs = startMs;
    levels.add(new Level(tickMs, startMs));
  }

  /**
   * Adds an entry, or replaces the entry already scheduled under {@code key} (the old one is removed
   * first and will never be handed out). A deadline in the current tick or in the past is accepted
   * and handed out by the next {@link #advance}.
   */
  public void schedule(long key, long deadlineMs, T value) {
    cancel(key);
    WheelEntry<T> entry = new WheelEntry<>(key, deadlineMs, value);
    entries.put(key, entry);
    if (!place(entry)) {
      Level finest = levels.get(0);
      insert(finest, finest.currentTickMs, entry);
    }
  }

  /** Removes the entry under {@code key} in O(1); returns whether there was one. */
  public boolean cancel(long key) {
    WheelEntry<T> entry = entries.remove(key);
    if (entry == null) {
      return false;
    }
    entry.bucket.remove(entry);
    return true;
  }

  public boolean contains(long key) {
    return entries.containsKey(key);
  }

  /** Number of entries in the wheel. */
  public int size() {
    return entries.size();
  }

  /**
   * Moves the wheel to {@code nowMs} and hands every entry whose level-0 bucket has started
   * (bucket start ≤ now) to {@code sink}, each exactly once. A time earlier than the wheel's
   * current time is treated as the current time. If the sink throws, the entries not yet handed out
   * stay in the wheel and the next call resumes with them.
   */
  public void advance(long nowMs, Consumer<Expired<T>> sink) {
    Objects.requireNonNull(sink, "sink");
    timeMs = Math.max(timeMs, nowMs);
    WheelBucket<T> bucket;
    while ((bucket = queue.peek()) != null && bucket.expirationMs() <= timeMs) {
      queue.poll();
      bucket.dequeued();
      advanceLevels(bucket.expirationMs());
      flush(bucket, sink);
    }
    advanceLevels(timeMs);
  }

  /**
   * The expiration of the earliest non-empty bucket — when the driver should next call
   * {@link #advance} — or {@code Long.MAX_VALUE} when the wheel is empty. It may be the start of a
   * coarse bucket that {@code advance} will only cascade; it is never later than the start of the
   * level-0 tick of any entry. A value at or before the current time means "advance now".
   */
  public long nextExpirationMs() {
    WheelBucket<T> head;
    while ((head = queue.peek()) != null && head.isEmpty()) {
      queue.poll();
      head.dequeued();
    }
    return head == null ? Long.MAX_VALUE : head.expirationMs();
  }

  /**
   * Puts an entry that is not yet due into the finest level whose span reaches its deadline.
   *
   * @return false when the entry is due (its deadline is within level 0's current tick or earlier)
   */
  private boolean place(WheelEntry<T> entry) {
    Level level = levels.get(0);
    if (level.isCurrentOrPast(entry.deadlineMs)) {
      return false;
    }
    for (int index = 1; !level.covers(entry.deadlineMs); index++) {
      level = levelAt(index);
    }
    insert(level, level.tickStart(entry.deadlineMs), entry);
    return true;
  }

  private void insert(Level level, long bucketStartMs, WheelEntry<T> entry) {
    WheelBucket<T> bucket = level.bucketAt(bucketStartMs);
    bucket.add(entry);
    if (bucket.enqueue(bucketStartMs)) {
      queue.offer(bucket);
    }
  }

  /** Re-places each entry of a bucket whose time has come; those now due go to the sink. */
  private void flush(WheelBucket<T> bucket, Consumer<Expired<T>> sink) {
    try {
      WheelEntry<T> entry;
      while ((entry = bucket.pollFirst()) != null) {
        if (!place(entry)) {
          entries.remove(entry.key);
          sink.accept(new Expired<>(entry.key, entry.deadlineMs, entry.value));
        }
      }
    } finally {
      // Only reached with entries left when the sink threw: requeue them rather than lose them.
      if (!bucket.isEmpty() && bucket.enqueue(bucket.expirationMs())) {
        queue.offer(bucket);
      }
    }
  }

  private void advanceLevels(long toMs) {
    for (Level level : levels) {
      level.advanceTo(toMs);
    }
  }

  /** Returns level {@code index}, creating it from the level below when it does not exist yet. */
  private Level levelAt(int index) {
    if (index == levels.size()) {
      Level below = levels.get(index - 1);
      levels.add(new Level(below.intervalMs, below.currentTickMs));
    }
    return levels.get(index);
  }

  /** One ring of buckets; see the class comment. */
  private final class Level {
    final long tickMs;
    /** {@code tickMs × wheelSize}, or {@code Long.MAX_VALUE} for a top level that spans everything. */
    final long intervalMs;
    final List<WheelBucket<T>> buckets;
    /** Start of the tick holding the wheel's time, on this level's grid. */
    long currentTickMs;

    Level(long tickMs, long timeMs) {
      this.tickMs = tickMs;
      this.intervalMs = tickMs > Long.MAX_VALUE / wheelSize ? Long.MAX_VALUE : tickMs * wheelSize;
      this.buckets = new ArrayList<>(wheelSize);
      for (int i = 0; i < wheelSize; i++) {
        buckets.add(new WheelBucket<>());
      }
      this.currentTickMs = tickStart(timeMs);
    }

    long tickStart(long timeMs) {
      return Math.floorDiv(timeMs, tickMs) * tickMs;
    }

    /** Written without {@code tickStart} so that even {@code Long.MIN_VALUE} cannot overflow. */
    boolean isCurrentOrPast(long deadlineMs) {
      return deadlineMs < currentTickMs || deadlineMs - currentTickMs < tickMs;
    }

    boolean covers(long deadlineMs) {
      return intervalMs == Long.MAX_VALUE || deadlineMs - currentTickMs < intervalMs;
    }

    WheelBucket<T> bucketAt(long bucketStartMs) {
      return buckets.get((int) Math.floorMod(Math.floorDiv(bucketStartMs, tickMs), (long) wheelSize));
    }

    void advanceTo(long toMs) {
      currentTickMs = Math.max(currentTickMs, tickStart(toMs));
    }
  }
}
