package ax.executor;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The executions started in the last {@code ttl} (5 minutes by default), so a dispatch the scheduler
 * repeats (its ack was lost, a leader failed over) is accepted without running the handler twice. A key
 * enters the window when its task is accepted (not when it finishes), so a repeat that arrives while
 * the first run is still going is caught too; the outcome is attached when the run ends, so a repeat
 * after that can re-send it.
 *
 * <p>Entries are kept in the order of their last touch, so expiry only looks at the head. The window is
 * bounded: past {@code maxEntries} the oldest entries go even if younger than {@code ttl}; a repeat that
 * late would run again, which is the price of bounded memory.
 *
 * <p>No Vert.x, no threads of its own; the clock is injected. Thread-safe: keys are added on the event
 * loop and outcomes attached on worker threads.
 *
 * @param <V> the recorded outcome
 */
final class DedupeWindow<V> {
  public static final Duration DEFAULT_TTL = Duration.ofMinutes(5);
  public static final int DEFAULT_MAX_ENTRIES = 100_000;

  private final Clock clock;
  private final long ttlMs;
  private final int maxEntries;
  private final LinkedHashMap<DedupeKey, Entry<V>> entries = new LinkedHashMap<>();

  private record Entry<V>(long touchedAtMs, V outcome) {
  }

  public DedupeWindow(Clock clock, Duration ttl, int maxEntries) {
    if (ttl.isNegative() || ttl.isZero() || maxEntries < 1) {
      throw new IllegalArgumentException("ttl must be positive and maxEntries ≥ 1");
    }
    this.clock = clock;
    this.ttlMs = ttl.toMillis();
    this.maxEntries = maxEntries;
  }

  /**
   * Records {@code key} as started unless it is already in the window.
   *
   * @return true if the key is new (run it), false if it is a repeat (do not run it)
   */
  public synchronized boolean tryStart(DedupeKey key) {
    long now = clock.millis();
    expire(now);
    if (entries.containsKey(key)) {
      return false;
    }
    entries.put(key, new Entry<>(now, null));
    trim();
    return true;
  }

  /** Attaches the outcome of a run and restarts its ttl (the window counts from when it was last run). */
  public synchronized void complete(DedupeKey key, V outcome) {
    long now = clock.millis();
    entries.remove(key);
    entries.put(key, new Entry<>(now, outcome));
    expire(now);
    trim();
  }

  /** True if {@code key} is in the window (started, finished or not). */
  public synchronized boolean contains(DedupeKey key) {
    expire(clock.millis());
    return entries.containsKey(key);
  }

  /** The recorded outcome, empty if the key is unknown or its run has not finished. */
  public synchronized Optional<V> outcome(DedupeKey key) {
    expire(clock.millis());
    Entry<V> e = entries.get(key);
    return e == null ? Optional.empty() : Optional.ofNullable(e.outcome());
  }

  public synchronized int size() {
    expire(clock.millis());
    return entries.size();
  }

  private void expire(long now) {
    Iterator<Map.Entry<DedupeKey, Entry<V>>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      if (now - it.next().getValue().touchedAtMs() < ttlMs) {
        return;
      }
      it.remove();
    }
  }

  private void trim() {
    Iterator<DedupeKey> it = entries.keySet().iterator();
    while (entries.size() > maxEntries && it.hasNext()) {
      it.next();
      it.remove();
    }
  }
}
