package ax.cluster;

/**
 * Who is in this node's cluster, as far as its failure detector knows (Hazelcast's member list and
 * heartbeats). Used to tell a lease holder that died from one that is merely slow: a successor re-fires
 * what a term left in flight at once when the term's holder has left, and waits for a live holder to
 * write back otherwise.
 */
public interface ClusterView {

  /** This node's member id, recorded with every term it leads; null when not clustered. */
  String localMember();

  /**
   * True only when {@code member} is known to have left: a clustered node that does not see it among the
   * members. False when not known (null, or this node is not clustered and cannot tell).
   */
  boolean hasLeft(String member);

  /** Runs {@code action} (on a cluster thread) each time a member leaves. */
  void onMemberLeft(Runnable action);

  /** A single node: no members to lose, no way to tell whether another process is alive. */
  ClusterView SINGLE = new ClusterView() {
    @Override
    public String localMember() {
      return null;
    }

    @Override
    public boolean hasLeft(String member) {
      return false;
    }

    @Override
    public void onMemberLeft(Runnable action) {
    }
  };
}
