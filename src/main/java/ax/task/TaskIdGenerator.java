package ax.task;

import java.time.Instant;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Snowflake-style task ids (R1): unique across nodes without coordination, roughly time-ordered (so
 * they index well), and not an auto-increment that reveals how many tasks exist. Layout, from the
 * most significant bit:
 *
 * <pre>
 *   0 | 41 bits: ms since 2025-01-01T00:00:00Z | 10 bits: node slot | 12 bits: sequence
 * </pre>
 *
 * <p>41 bits of milliseconds last until 2094; the sign bit stays 0, so ids are positive. Each node
 * must use its own slot (0–{@value #MAX_NODE_SLOT}); within a slot the ids are strictly increasing,
 * even when the supplied clock steps back (an NTP correction: the generator keeps using the last
 * millisecond it issued) or when more than 4096 ids are asked for within one millisecond (it borrows
 * the next millisecond). Ids can be guessed from their neighbours, so they are never an access
 * control: the API scopes every lookup to the caller's tenant.
 *
 * <p>Thread-safe.
 */
public final class TaskIdGenerator {

  /** The highest node slot; slots are 0–1023. */
  public static final int MAX_NODE_SLOT = 1023;
  /** Origin of the id's time field: 2025-01-01T00:00:00Z, in Unix epoch milliseconds. */
  public static final long EPOCH_MS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();

  private static final int SEQUENCE_BITS = 12;
  private static final int NODE_BITS = 10;
  private static final int TIME_SHIFT = SEQUENCE_BITS + NODE_BITS;
  private static final long MAX_SEQUENCE = (1L << SEQUENCE_BITS) - 1;
  private static final long MAX_MILLIS = (1L << 41) - 1;

  private final long nodeField;
  private final LongSupplier epochMillis;
  /** Milliseconds since {@link #EPOCH_MS} of the last id issued; -1 before the first. */
  private long lastMs = -1;
  private long sequence;

  /**
   * @param nodeSlot    this node's slot, 0–1023, unique among live nodes
   * @param epochMillis the clock, in Unix epoch milliseconds
   */
  public TaskIdGenerator(int nodeSlot, LongSupplier epochMillis) {
    if (nodeSlot < 0 || nodeSlot > MAX_NODE_SLOT) {
      throw new IllegalArgumentException("node slot must be 0–" + MAX_NODE_SLOT + ", was " + nodeSlot);
    }
    this.nodeField = (long) nodeSlot << SEQUENCE_BITS;
    this.epochMillis = Objects.requireNonNull(epochMillis, "epochMillis");
  }

  /**
   * The next id, greater than every id this generator issued before.
   *
   * @throws IllegalStateException when the clock is before 2025 or the 41-bit time field is exhausted
   */
  public synchronized long nextId() {
    long nowMs = epochMillis.getAsLong() - EPOCH_MS;
    if (nowMs < 0 && lastMs < 0) {
      throw new IllegalStateException("clock reads " + Instant.ofEpochMilli(nowMs + EPOCH_MS)
          + ", before the id epoch " + Instant.ofEpochMilli(EPOCH_MS));
    }
    if (nowMs > lastMs) {
      lastMs = nowMs;
      sequence = 0;
    } else if (sequence < MAX_SEQUENCE) {
      sequence++;
    } else {
      lastMs++;
      sequence = 0;
    }
    if (lastMs > MAX_MILLIS) {
      throw new IllegalStateException("task id time field exhausted at " + Instant.ofEpochMilli(lastMs + EPOCH_MS));
    }
    return lastMs << TIME_SHIFT | nodeField | sequence;
  }

  /** The node slot that issued {@code id}. */
  public static int nodeSlotOf(long id) {
    return (int) ((id >>> SEQUENCE_BITS) & MAX_NODE_SLOT);
  }

  /** The time {@code id} was issued (or borrowed), in Unix epoch milliseconds. */
  public static long millisOf(long id) {
    return (id >>> TIME_SHIFT) + EPOCH_MS;
  }
}
