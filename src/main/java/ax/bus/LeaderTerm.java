package ax.bus;

/**
 * This node's relation to the leader lease: {@code leader} with the epoch of its term, or a standby
 * (epoch 0). {@code holder} is the process-unique lease holder name used to fence claims.
 */
public record LeaderTerm(boolean leader, long epoch, String holder) {
  public static LeaderTerm standby(String holder) {
    return new LeaderTerm(false, 0, holder);
  }
}
