package ax.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * {@link ClusterView} from the node's own Hazelcast instance (its own membership listener: the cluster
 * manager's single node listener belongs to Vert.x). Member ids are Hazelcast member UUIDs, which are
 * also Vert.x's node ids. A killed member is dropped once its connection fails or its heartbeats stop
 * ({@link HazelcastSettings}). It logs the membership in one line when the node joins and at every
 * change: Hazelcast's own INFO lines are held back (ax.logging.QuietLoggers).
 */
public final class HazelcastClusterView implements ClusterView {
  private static final Logger LOG = Logger.getLogger(HazelcastClusterView.class.getName());

  private final HazelcastInstance hazelcast;
  private final CopyOnWriteArrayList<Runnable> onLeft = new CopyOnWriteArrayList<>();

  public HazelcastClusterView(HazelcastClusterManager manager) {
    this.hazelcast = manager.getHazelcastInstance();
    hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        LOG.info("cluster member joined: " + address(event.getMember()) + "; members " + addresses(event.getMembers()));
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        LOG.info("cluster member left: " + address(event.getMember()) + "; members " + addresses(event.getMembers()));
        onLeft.forEach(Runnable::run);
      }
    });
    LOG.info("joined cluster '" + hazelcast.getConfig().getClusterName() + "' as "
        + address(hazelcast.getCluster().getLocalMember()) + "; members " + addresses(hazelcast.getCluster().getMembers()));
  }

  private static String address(Member m) {
    return m.getAddress().getHost() + ":" + m.getAddress().getPort();
  }

  private static String addresses(Set<Member> members) {
    return members.stream().map(HazelcastClusterView::address).collect(Collectors.joining(", ", "[", "]"));
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
