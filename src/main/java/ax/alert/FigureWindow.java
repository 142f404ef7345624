package ax.alert;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The leader's view of the cluster's figures: every node's reported changes, stamped when they arrived,
 * kept for the longest look-back; and the last gauge values of each node. Owned by the leader's alert
 * verticle; started afresh each term (the previous leader's window is not handed over, so a new leader
 * judges a rule's absence only once it has collected that rule's whole look-back:
 * {@link #coveredMs}). Given the time; no clock reads.
 */
public final class FigureWindow {
  private record Entry(long atMs, NodeFigures delta) {
  }

  private record Sample(long atMs, long value) {
  }

  private final Deque<Entry> entries = new ArrayDeque<>();
  private final Map<String, Entry> latest = new HashMap<>();
  private final Deque<Sample> backlog = new ArrayDeque<>();
  private long collectingSinceMs;

  public FigureWindow(long nowMs) {
    collectingSinceMs = nowMs;
  }

  /** For how long this window has been collecting: a look-back longer than this is not complete yet. */
  public long coveredMs(long nowMs) {
    return nowMs - collectingSinceMs;
  }

  public void add(long nowMs, NodeFigures delta) {
    Entry e = new Entry(nowMs, delta);
    entries.addLast(e);
    latest.put(delta.nodeId(), e);
  }

  /** Drops what no rule looks at any more. */
  public void prune(long nowMs, long keepMs) {
    while (!entries.isEmpty() && entries.peekFirst().atMs() < nowMs - keepMs) {
      entries.removeFirst();
    }
    while (!backlog.isEmpty() && backlog.peekFirst().atMs() < nowMs - keepMs) {
      backlog.removeFirst();
    }
    latest.values().removeIf(e -> e.atMs() < nowMs - keepMs);
  }

  /** Every node's counter changes that arrived after {@code nowMs - lookbackMs}, added up. */
  public NodeFigures sum(long nowMs, long lookbackMs) {
    NodeFigures total = NodeFigures.zero("cluster");
    for (Iterator<Entry> it = entries.descendingIterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.atMs() <= nowMs - lookbackMs) {
        break;
      }
      total = total.plus(e.delta());
    }
    return total;
  }

  /** Each node's latest clock offset (ms), for the nodes that reported within {@code freshMs}. */
  public Map<String, Double> clockOffsets(long nowMs, long freshMs) {
    Map<String, Double> offsets = new HashMap<>();
    latest.forEach((node, e) -> {
      if (e.atMs() >= nowMs - freshMs) {
        offsets.put(node, e.delta().clockOffsetMs());
      }
    });
    return offsets;
  }

  /**
   * The webhook backlog now (the sum of the nodes' latest fresh reports; only the leader's is non-zero),
   * remembered so that its growth over a look-back can be asked for.
   */
  public long sampleBacklog(long nowMs, long freshMs) {
    long sum = 0;
    for (Entry e : latest.values()) {
      if (e.atMs() >= nowMs - freshMs) {
        sum += e.delta().webhookBacklog();
      }
    }
    backlog.addLast(new Sample(nowMs, sum));
    return sum;
  }

  /** The backlog now minus the oldest sample within the look-back (0 with fewer than two samples). */
  public long backlogGrowth(long nowMs, long lookbackMs) {
    Sample oldest = null;
    for (Sample s : backlog) {
      if (s.atMs() >= nowMs - lookbackMs) {
        oldest = s;
        break;
      }
    }
    return oldest == null || backlog.isEmpty() ? 0 : backlog.peekLast().value() - oldest.value();
  }
}
