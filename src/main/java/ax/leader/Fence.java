package ax.leader;

import java.util.Objects;

/**
 * The fencing token of a leader term: a write carrying it applies only while {@code holder} still holds
 * lease {@code lease} in exactly this {@code epoch} (checked in the same statement, see
 * {@code ax.store.Sql#LEASE}). Epochs only grow, so a deposed leader's writes change nothing.
 */
public record Fence(String lease, String holder, long epoch) {
  public Fence {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(holder, "holder");
    if (epoch < 1) {
      throw new IllegalArgumentException("a fence needs a real epoch (≥ 1), was " + epoch);
    }
  }
}
