package ax.dispatch;

import ax.wheel.ScheduledTask;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Due batches from the wheel waiting for a claim statement. The wheel hands out what is due at each
 * millisecond, so tasks spread over time arrive as batches of one or two; claimed one batch per
 * statement, 1 000 tasks a second were 1 000 claims — 1 000 durable commits — a second, and with a few
 * claims in flight the rest queued behind the WAL flushes (bench/README.md, History, 2026-12-02, second
 * session). {@link #next} joins the batches that queued while the earlier claims ran, up to the claim
 * batch: nothing waits for a batch to fill (a lone batch leaves at once, as before), and under load one
 * commit claims everything that arrived meanwhile, oldest first.
 *
 * <p>It reports every change of its size to a listener ({@link DispatchLoad#awaitingClaim}), so the
 * node's count of due work cannot drift from what is queued.
 *
 * <p>Not thread-safe: the dispatcher's event loop owns it.
 */
public final class ClaimQueue {
  private final int maxBatch;
  private final ArrayDeque<List<ScheduledTask>> waiting = new ArrayDeque<>();
  private final IntConsumer sizeChanged;
  private int tasks;

  /** @param maxBatch most tasks per claim ({@code AX_CLAIM_BATCH}); a single larger batch is kept whole */
  public ClaimQueue(int maxBatch) {
    this(maxBatch, delta -> { });
  }

  /** @param sizeChanged hears each change of {@link #tasks()}: positive when it grew, negative when it shrank */
  public ClaimQueue(int maxBatch, IntConsumer sizeChanged) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be ≥ 1, was " + maxBatch);
    }
    this.maxBatch = maxBatch;
    this.sizeChanged = sizeChanged;
  }

  private void changeBy(int delta) {
    if (delta != 0) {
      tasks += delta;
      sizeChanged.accept(delta);
    }
  }

  public void add(List<ScheduledTask> batch) {
    if (!batch.isEmpty()) {
      waiting.add(batch);
      changeBy(batch.size());
    }
  }

  public boolean isEmpty() {
    return waiting.isEmpty();
  }

  /** Tasks waiting, in all batches. */
  public int tasks() {
    return tasks;
  }

  /** The oldest waiting batch joined with those behind it while they fit in one claim; null when none wait. */
  public List<ScheduledTask> next() {
    List<ScheduledTask> first = waiting.poll();
    if (first == null || waiting.isEmpty() || first.size() + waiting.peek().size() > maxBatch) {
      changeBy(first == null ? 0 : -first.size());
      return first;
    }
    List<ScheduledTask> joined = new ArrayList<>(Math.min(maxBatch, first.size() * (waiting.size() + 1)));
    joined.addAll(first);
    while (!waiting.isEmpty() && joined.size() + waiting.peek().size() <= maxBatch) {
      joined.addAll(waiting.poll());
    }
    changeBy(-joined.size());
    return joined;
  }

  /** Drops everything waiting (the term ended: the tasks are still DELAYED/READY in PostgreSQL). */
  public void clear() {
    waiting.clear();
    changeBy(-tasks);
  }
}
