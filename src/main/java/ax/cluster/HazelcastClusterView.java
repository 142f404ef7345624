package ax.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link ClusterView} from the node's own Hazelcast instance (its own membership listener: the cluster
 * manager's single node listener belongs to Vert.x). Member ids are Hazelcast member UUIDs, which are
 * also Vert.x's node ids. A killed member is dropped once its connection fails or its heartbeats stop
 * ({@link HazelcastSettings}).
 */
public final class HazelcastClusterView implements ClusterView {
  private final HazelcastInstance hazelcast;
  private final CopyOnWriteArrayList<Runnable> onLeft = new CopyOnWriteArrayList<>();

  public HazelcastClusterView(HazelcastClusterManager manager) {
    this.hazelcast = manager.getHazelcastInstance();
    hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        onLeft.forEach(Runnable::run);
      }
    });
  }

  @Override
  public String localMember() {
    return hazelcast.getCluster().getLocalMember().getUuid().toString();
  }

  @Override
  public boolean hasLeft(String member) {
    if (member == null) {
      return false;
    }
    UUID id;
    try {
      id = UUID.fromString(member);
    } catch (IllegalArgumentException e) {
      return false;
    }
    Set<Member> members = hazelcast.getCluster().getMembers();
    return members.stream().noneMatch(m -> m.getUuid().equals(id));
  }

  @Override
  public void onMemberLeft(Runnable action) {
    onLeft.add(action);
  }
}
