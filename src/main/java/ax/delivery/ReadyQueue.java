package ax.delivery;

import ax.task.ReadyTask;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * READY processor tasks per processor, highest priority first, then oldest trigger time (R2's order
 * for tasks due together). Ids are unique: a task found again by the database top-up while it is
 * already queued (or out with an executor) is ignored. Bounded: beyond {@code capacity} tasks stay READY
 * in PostgreSQL and the top-up brings them in later, so a huge backlog cannot exhaust the heap.
 */
public final class ReadyQueue {
  private static final Comparator<ReadyTask> ORDER = Comparator.comparingInt(ReadyTask::priority).reversed()
      .thenComparingLong(ReadyTask::dueMs)
      .thenComparingLong(ReadyTask::taskId);

  private final int capacity;
  private final Map<String, PriorityQueue<ReadyTask>> byProcessor = new HashMap<>();
  private final Set<Long> known = new HashSet<>();
  private int size;

  public ReadyQueue(int capacity) {
    this.capacity = capacity;
  }

  /** Adds the task unless it is already known; returns false when it was a duplicate or no room. */
  public boolean offer(ReadyTask t) {
    if (size >= capacity || !known.add(t.taskId())) {
      return false;
    }
    byProcessor.computeIfAbsent(t.processor(), p -> new PriorityQueue<>(ORDER)).add(t);
    size++;
    return true;
  }

  /** Takes up to {@code max} tasks of one processor, in order. They stay "known" until {@link #forget}. */
  public List<ReadyTask> poll(String processor, int max) {
    PriorityQueue<ReadyTask> q = byProcessor.get(processor);
    List<ReadyTask> out = new ArrayList<>(Math.min(max, q == null ? 0 : q.size()));
    while (q != null && out.size() < max && !q.isEmpty()) {
      out.add(q.poll());
      size--;
    }
    return out;
  }

  /** Marks a task as done with (dispatched for good, finished or gone), so it may be offered again later. */
  public void forget(long taskId) {
    known.remove(taskId);
  }

  /** Puts back tasks taken by {@link #poll} that could not be dispatched (no room, rejected, failed). */
  public void putBack(List<ReadyTask> tasks) {
    for (ReadyTask t : tasks) {
      byProcessor.computeIfAbsent(t.processor(), p -> new PriorityQueue<>(ORDER)).add(t);
      size++;
    }
  }

  /** Processors that have tasks waiting. */
  public List<String> processorsWaiting() {
    List<String> out = new ArrayList<>();
    byProcessor.forEach((p, q) -> {
      if (!q.isEmpty()) {
        out.add(p);
      }
    });
    return out;
  }

  public int size() {
    return size;
  }

  public int freeCapacity() {
    return Math.max(0, capacity - size);
  }

  public void clear() {
    byProcessor.clear();
    known.clear();
    size = 0;
  }
}
