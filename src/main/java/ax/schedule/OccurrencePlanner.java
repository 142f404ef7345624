package ax.schedule;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * Decides which occurrences of one schedule to create now: every due time up to the load horizon, with
 * missed ones put through the {@link MisfirePolicy}. The leader calls it when a schedule's next due time
 * enters the load window and writes the {@link Plan} — the occurrences, the misfire records and the new
 * cursor — in one fenced transaction, so the plan is applied whole or not at all; the unique key on
 * (schedule, scheduled time) makes a repeated plan harmless.
 *
 * <p>Pure: it is given the time; no clock, no I/O.
 */
public final class OccurrencePlanner {
  private OccurrencePlanner() {
  }

  /**
   * Where a schedule stands.
   *
   * @param nextDue the first due time not materialised yet; null once the schedule has ended
   * @param endAt   no occurrence is due after this; null for none
   * @param maxRuns at most this many occurrences are created in all (misfired ones do not count); null
   *                for no limit
   * @param runs    occurrences created so far
   */
  public record Cursor(Recurrence recurrence, Instant nextDue, Instant endAt, Long maxRuns, long runs,
                       MisfirePolicy misfire) {
  }

  /**
   * One occurrence to create.
   *
   * @param scheduledTime its due time by the schedule — with the schedule id, its unique key
   * @param triggerTime   when it fires: the due time, or now for a missed one being caught up
   */
  public record Occurrence(Instant scheduledTime, Instant triggerTime) {
  }

  /**
   * Missed due times that are not fired: {@code first} … {@code last}, {@code count} of them, or
   * {@code count} null when the range was too long to visit and its due times cannot be counted without
   * visiting them (a cron schedule missed for months).
   */
  public record Misfired(Instant first, Instant last, Long count) {
  }

  /** What to write: the occurrences, the misfire records, and the cursor's new due time (null: ended). */
  public record Plan(List<Occurrence> occurrences, List<Misfired> misfired, Instant nextDue) {
    public boolean ended() {
      return nextDue == null;
    }

    public long misfiredCount() {
      long n = 0;
      for (Misfired m : misfired) {
        n += m.count() == null ? 0 : m.count();
      }
      return n;
    }
  }

  /**
   * @param now     the database clock's now
   * @param horizon create every occurrence due at or before this (the end of the load window)
   */
  public static Plan plan(Cursor cursor, Instant now, Instant horizon, ScheduleSettings settings) {
    Builder b = new Builder(cursor, now, settings);
    Instant misfireLine = now.minusMillis(settings.misfireThresholdMs());
    Instant t = cursor.nextDue();
    int steps = 0;
    while (t != null && !t.isAfter(horizon)) {
      if (cursor.endAt() != null && t.isAfter(cursor.endAt())) {
        t = null;
        break;
      }
      if (t.isBefore(misfireLine)) {
        if (steps >= settings.maxStepsPerPlan()) {
          // Too many to visit: the rest of the missed interval becomes one record, counted if it can be.
          Instant resume = cursor.recurrence().nextAfter(misfireLine.minusMillis(1)).orElse(null);
          Instant lastMissed = misfireLine.minusMillis(1);
          Long count = cursor.recurrence().countBetween(t.minusMillis(1), lastMissed).orElse(null);
          b.skipRange(t, lastMissed, count);
          t = resume;
          continue;
        }
        b.missed(t);
      } else {
        b.flushMissed();
        if (b.runsLeft() == 0) {
          t = null;
          break;
        }
        b.occur(t, t);
      }
      steps++;
      t = cursor.recurrence().nextAfter(t).orElse(null);
      if (b.runsLeft() == 0 && !b.hasMissed()) {
        t = null;
      }
    }
    b.flushMissed();
    if (b.runsLeft() == 0) {
      t = null;
    }
    return new Plan(List.copyOf(b.occurrences), List.copyOf(b.misfired), t);
  }

  /** Gathers one plan; missed due times wait here until the first on-time one (or the end) flushes them. */
  private static final class Builder {
    final Cursor cursor;
    final Instant now;
    final ScheduleSettings settings;
    final List<Occurrence> occurrences = new ArrayList<>();
    final List<Misfired> misfired = new ArrayList<>();
    /** FIRE_ALL keeps the latest {@code fireAllCap} missed times; the others only count. */
    final Deque<Instant> latestMissed = new ArrayDeque<>();
    Instant firstMissed;
    Instant lastDropped;
    long missedCount;

    Builder(Cursor cursor, Instant now, ScheduleSettings settings) {
      this.cursor = cursor;
      this.now = now;
      this.settings = settings;
    }

    long runsLeft() {
      return cursor.maxRuns() == null ? Long.MAX_VALUE
          : Math.max(0, cursor.maxRuns() - cursor.runs() - occurrences.size());
    }

    boolean hasMissed() {
      return missedCount > 0;
    }

    void occur(Instant scheduled, Instant trigger) {
      occurrences.add(new Occurrence(scheduled, trigger));
    }

    void missed(Instant t) {
      if (missedCount == 0) {
        firstMissed = t;
      }
      missedCount++;
      latestMissed.addLast(t);
      int keep = cursor.misfire() == MisfirePolicy.FIRE_ALL ? settings.fireAllCap() : 1;
      while (latestMissed.size() > keep) {
        lastDropped = latestMissed.removeFirst();
      }
    }

    void skipRange(Instant first, Instant last, Long count) {
      flushMissed();
      misfired.add(new Misfired(first, last, count));
    }

    /** Applies the misfire policy to the missed due times gathered so far. */
    void flushMissed() {
      if (missedCount == 0) {
        return;
      }
      List<Instant> fire = new ArrayList<>();
      if (cursor.misfire() != MisfirePolicy.SKIP) {
        fire.addAll(latestMissed); // FIRE_ONCE kept only the latest one
      }
      long left = runsLeft();
      while (fire.size() > left) {
        fire.remove(0); // max_runs: the latest ones win, like the cap
      }
      long notFired = missedCount - fire.size();
      if (notFired > 0) {
        // What fires is always the latest missed times, so what does not is the run before them.
        Instant lastNotFired = fire.isEmpty() ? latestMissed.getLast() : justBefore(fire.get(0));
        misfired.add(new Misfired(firstMissed, lastNotFired, notFired));
      }
      for (Instant t : fire) {
        occur(t, now);
      }
      latestMissed.clear();
      missedCount = 0;
      firstMissed = null;
      lastDropped = null;
    }

    /** The missed time before {@code t}: kept before it, or else the latest one already dropped. */
    private Instant justBefore(Instant t) {
      Instant previous = lastDropped;
      for (Instant kept : latestMissed) {
        if (kept.equals(t)) {
          break;
        }
        previous = kept;
      }
      return previous;
    }
  }

  /** The next {@code n} due times after {@code after} within the window (the API's preview). */
  public static List<Instant> preview(Recurrence recurrence, Instant after, Instant endAt, int n) {
    List<Instant> out = new ArrayList<>(n);
    Optional<Instant> t = recurrence.nextAfter(after);
    while (t.isPresent() && out.size() < n && (endAt == null || !t.get().isAfter(endAt))) {
      out.add(t.get());
      t = recurrence.nextAfter(t.get());
    }
    return out;
  }
}
