package ax.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * When single submissions go to PostgreSQL alone and when together: an insert is sent at once while
 * fewer than {@code maxInFlight} statements are out; otherwise it waits, and when a statement comes
 * back everything waiting (up to {@code maxBatch}) goes in the next one. So a lone submission pays no
 * wait at all, and under concurrent load the submissions that arrive during one round trip share the
 * next statement and its commit instead of each paying its own (natural batching, no timer).
 *
 * <p>Pure and not thread-safe: one instance per event loop, driven by that loop only.
 */
final class InsertPacing<T> {
  private final int maxInFlight;
  private final int maxBatch;
  private final ArrayDeque<T> waiting = new ArrayDeque<>();
  private int inFlight;

  InsertPacing(int maxInFlight, int maxBatch) {
    if (maxInFlight < 1 || maxBatch < 1) {
      throw new IllegalArgumentException("maxInFlight and maxBatch must be at least 1");
    }
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** A submission to insert: what to send now — itself alone, or nothing (it waits for a statement to return). */
  List<T> arrived(T item) {
    if (inFlight < maxInFlight) {
      inFlight++;
      return List.of(item);
    }
    waiting.add(item);
    return List.of();
  }

  /** A statement came back (whatever its outcome): the waiting submissions to send together now, possibly none. */
  List<T> returned() {
    if (inFlight == 0) {
      throw new IllegalStateException("no statement in flight");
    }
    inFlight--;
    if (waiting.isEmpty()) {
      return List.of();
    }
    inFlight++;
    List<T> next = new ArrayList<>(Math.min(maxBatch, waiting.size()));
    while (next.size() < maxBatch && !waiting.isEmpty()) {
      next.add(waiting.poll());
    }
    return next;
  }

  int inFlight() {
    return inFlight;
  }

  int waiting() {
    return waiting.size();
  }
}
