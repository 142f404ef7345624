package ax.bench.peers;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What the executions of one recurring phase looked like where the work landed. Every arrival names its
 * schedule (index into the {@link RecurringPlan}), the due time it ran for (ax: the callback's
 * {@code trigger_time}; db-scheduler: the execution's {@code executionTime}; Quartz: the scheduled fire
 * time), optionally a task id and attempt, and when it arrived.
 *
 * <ul>
 *   <li>An arrival whose due time is not on its schedule's grid ({@code anchor + k·period}) is <b>off grid</b>;
 *       one on the grid after the schedule's last slot is <b>after the window</b> (ignored).</li>
 *   <li>The first arrival of a slot counts as <b>received</b>; its lateness (arrival − due) goes into the
 *       histogram, or, if negative, into <b>early</b>.</li>
 *   <li>A later arrival for a slot is <b>doubled</b>: by a different task id (two occurrences for one due time)
 *       or by the same task id (the same occurrence delivered twice, a retry included).</li>
 *   <li><b>missed</b> = n × slots (from the definition) − received.</li>
 * </ul>
 * Thread-safe (synchronized): arrivals come from event loops or worker threads.
 */
public final class OccurrenceLog {
  public static final long NO_TASK = Long.MIN_VALUE;
  private static final int SAMPLES = 20;

  private final RecurringPlan plan;
  private final long[] firstArrival;
  private final long[] firstTask;
  private final short[] count;
  private final Histogram lateness = Outcome.newHistogram();
  private final TreeMap<Integer, Histogram> byMinute = new TreeMap<>();
  private long received;
  private long arrivals;
  private long doubledOtherTask;
  private long doubledSameTask;
  private long early;
  private long maxEarlyMs;
  private long offGrid;
  private long afterWindow;
  private long unknown;
  private long firstMs = Long.MAX_VALUE;
  private long lastMs = Long.MIN_VALUE;
  private final List<String> samples = new ArrayList<>();

  public OccurrenceLog(RecurringPlan plan) {
    this.plan = plan;
    int size = Math.toIntExact(plan.expected());
    this.firstArrival = new long[size];
    this.firstTask = new long[size];
    this.count = new short[size];
  }

  public RecurringPlan plan() {
    return plan;
  }

  public synchronized void record(int schedule, long dueMs, long taskId, long arrivalMs) {
    arrivals++;
    if (schedule < 0 || schedule >= plan.n()) {
      unknown++;
      sample("unknown schedule index " + schedule + " (due " + dueMs + ", task " + taskId + ")");
      return;
    }
    long off = dueMs - plan.anchor(schedule);
    if (off < 0 || off % plan.periodMs() != 0) {
      offGrid++;
      sample("off grid: schedule " + schedule + " ran for " + java.time.Instant.ofEpochMilli(dueMs) + " (task "
          + taskId + "), its grid is " + java.time.Instant.ofEpochMilli(plan.anchor(schedule)) + " + k·"
          + plan.periodMs() + " ms");
      return;
    }
    long k = off / plan.periodMs();
    if (k >= plan.slots()) {
      afterWindow++;
      return;
    }
    int idx = schedule * plan.slots() + (int) k;
    if (count[idx] == 0) {
      count[idx] = 1;
      firstArrival[idx] = arrivalMs;
      firstTask[idx] = taskId;
      received++;
      long late = arrivalMs - dueMs;
      if (late < 0) {
        early++;
        maxEarlyMs = Math.max(maxEarlyMs, -late);
      } else {
        lateness.recordValue(Math.min(late, lateness.getHighestTrackableValue()));
        int minute = (int) ((dueMs - plan.firstDueMs()) / 60_000);
        byMinute.computeIfAbsent(minute, m -> Outcome.newHistogram())
            .recordValue(Math.min(late, lateness.getHighestTrackableValue()));
      }
      firstMs = Math.min(firstMs, arrivalMs);
      lastMs = Math.max(lastMs, arrivalMs);
      return;
    }
    if (count[idx] < Short.MAX_VALUE) {
      count[idx]++;
    }
    boolean same = taskId != NO_TASK && taskId == firstTask[idx];
    if (same) {
      doubledSameTask++;
    } else {
      doubledOtherTask++;
    }
    sample("doubled: schedule " + schedule + " due " + java.time.Instant.ofEpochMilli(dueMs) + " arrived again at +"
        + (arrivalMs - dueMs) + " ms" + (taskId == NO_TASK ? "" : " as task " + taskId + (same ? " (the same task)"
        : " (first was task " + firstTask[idx] + ")")));
  }

  private void sample(String s) {
    if (samples.size() < SAMPLES) {
      samples.add(s);
    }
  }

  public synchronized long received() {
    return received;
  }

  /** Up to {@code max} slots not received: {schedule index, due ms}. */
  public synchronized List<long[]> missedSlots(int max) {
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < plan.n() && out.size() < max; i++) {
      for (int k = 0; k < plan.slots() && out.size() < max; k++) {
        if (count[i * plan.slots() + k] == 0) {
          out.add(new long[] {i, plan.due(i, k)});
        }
      }
    }
    return out;
  }

  /** Schedules with at least one missed slot. */
  public synchronized long schedulesWithMisses() {
    long s = 0;
    for (int i = 0; i < plan.n(); i++) {
      for (int k = 0; k < plan.slots(); k++) {
        if (count[i * plan.slots() + k] == 0) {
          s++;
          break;
        }
      }
    }
    return s;
  }

  public synchronized RecurringOutcome outcome() {
    TreeMap<Integer, Long> p99 = new TreeMap<>();
    byMinute.forEach((m, h) -> p99.put(m, h.getValueAtPercentile(99)));
    List<String> s = new ArrayList<>(samples);
    for (long[] m : missedSlots(Math.max(0, SAMPLES - s.size()))) {
      s.add("missed: schedule " + m[0] + " due " + java.time.Instant.ofEpochMilli(m[1]));
    }
    return new RecurringOutcome(lateness.copy(), plan.expected(), received, arrivals, doubledOtherTask,
        doubledSameTask, early, maxEarlyMs, offGrid, afterWindow, unknown, received == 0 ? 0 : firstMs,
        received == 0 ? 0 : lastMs, p99, s);
  }
}
