package ax.leader;

import java.util.Objects;

/**
 * This node's relation to a leader lease: leading it in {@code epoch}, or a standby (epoch 0).
 * {@code holder} is the process-unique name this node holds leases under. Only a leading term has a
 * {@link #fence()}: there are no fences for standbys, so nothing can write as a leader by accident.
 */
public record LeaderTerm(String lease, String holder, long epoch, boolean leader) {
  public LeaderTerm {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(holder, "holder");
    if (leader && epoch < 1) {
      throw new IllegalArgumentException("a leading term needs an epoch ≥ 1, was " + epoch);
    }
  }

  public static LeaderTerm standby(String lease, String holder) {
    return new LeaderTerm(lease, holder, 0, false);
  }

  public static LeaderTerm leading(String lease, String holder, long epoch) {
    return new LeaderTerm(lease, holder, epoch, true);
  }

  /** The token every write of this term carries. */
  public Fence fence() {
    if (!leader) {
      throw new IllegalStateException("a standby has no fence (holder " + holder + ")");
    }
    return new Fence(lease, holder, epoch);
  }

  /** True when {@code other} is this very term (same lease, holder and epoch, both leading). */
  public boolean sameTermAs(LeaderTerm other) {
    return other != null && leader && other.leader && epoch == other.epoch && lease.equals(other.lease)
        && holder.equals(other.holder);
  }
}
