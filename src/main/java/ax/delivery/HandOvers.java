package ax.delivery;

import ax.task.ReadyTask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Which task is handed to which executor in which attempt, in the current term — and from that, how
 * many tasks each executor holds ("outstanding"), which is what its room is computed from. The count is
 * changed in exactly two places, {@link #handOver} and {@link #settle}, so it always equals the number
 * of tasks handed to that executor: it cannot go negative and cannot leak.
 */
final class HandOvers {
  /**
   * A task handed to an executor; {@code attempt} is 0 until its dispatch write returned it;
   * {@code handedAtMs} is when it was handed over, to within a tick.
   */
  record HandOver(String executorId, ReadyTask task, int attempt, long handedAtMs) {
  }

  private final Map<Long, HandOver> byTask = new HashMap<>();
  private final Map<String, Integer> outstanding = new HashMap<>();

  /** The task goes to {@code executorId} (its attempt is not known yet); a previous hand-over is settled. */
  void handOver(String executorId, ReadyTask t, long nowMs) {
    HandOver previous = byTask.get(t.taskId());
    if (previous != null) {
      settle(t.taskId(), previous.executorId(), previous.attempt());
    }
    byTask.put(t.taskId(), new HandOver(executorId, t, 0, nowMs));
    outstanding.merge(executorId, 1, Integer::sum);
  }

  /** The dispatch write gave the task its attempt. */
  void attemptWritten(long taskId, String executorId, int attempt) {
    HandOver h = byTask.get(taskId);
    if (h != null && h.executorId().equals(executorId) && h.attempt() == 0) {
      byTask.put(taskId, new HandOver(executorId, h.task(), attempt, h.handedAtMs()));
    }
  }

  /**
   * The task is no longer out with {@code executorId} in {@code attempt} (0: in whatever attempt); a
   * hand-over to another executor or in another attempt is left alone.
   */
  void settle(long taskId, String executorId, int attempt) {
    HandOver h = byTask.get(taskId);
    if (h == null || !h.executorId().equals(executorId) || (attempt != 0 && h.attempt() != attempt)) {
      return;
    }
    byTask.remove(taskId);
    outstanding.computeIfPresent(executorId, (id, n) -> n <= 1 ? null : n - 1);
  }

  /** Settles everything handed to {@code executorId}. */
  void settleAll(String executorId) {
    List<HandOver> all = new ArrayList<>();
    byTask.values().forEach(h -> {
      if (h.executorId().equals(executorId)) {
        all.add(h);
      }
    });
    all.forEach(h -> settle(h.task().taskId(), executorId, h.attempt()));
  }

  /** Hand-overs older than their budget (how long the executor may take to answer for the task). */
  List<HandOver> overdue(long nowMs, ToLongFunction<HandOver> budgetMs) {
    List<HandOver> out = new ArrayList<>();
    for (HandOver h : byTask.values()) {
      if (nowMs - h.handedAtMs() > budgetMs.applyAsLong(h)) {
        out.add(h);
      }
    }
    return out;
  }

  /** The hand-over of {@code taskId} to {@code executorId} in exactly {@code attempt}, or null. */
  HandOver in(long taskId, String executorId, int attempt) {
    HandOver h = byTask.get(taskId);
    return h != null && h.attempt() == attempt && h.executorId().equals(executorId) ? h : null;
  }

  int outstandingOf(String executorId) {
    return outstanding.getOrDefault(executorId, 0);
  }

  int size() {
    return byTask.size();
  }

  void clear() {
    byTask.clear();
    outstanding.clear();
  }
}
