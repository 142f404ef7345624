package ax.cluster;

import ax.config.AxConfig.ClusterSettings;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/**
 * The Hazelcast configuration of a scheduler node: vertx-hazelcast's defaults (its maps and multimap
 * for event-bus subscriptions) with discovery replaced by TCP join to exactly the configured members —
 * no multicast, no auto-detection, bound to one interface (VERTX5-NOTES §3).
 */
public final class HazelcastSettings {
  /**
   * Hazelcast's partitions (its default: 271). Every member that joins or leaves makes the master — in a
   * small cluster often the leader, the first node started — migrate partitions: with 271 a join cost the
   * leader ~0.55 s of CPU, with 31 ~0.2 s (two-node probe, 2026-12-06), and a rolling restart makes two
   * such changes per node while the leader fires tasks. ax keeps little in Hazelcast (event-bus
   * subscriptions, a few small maps), so 31 partitions stay far from Hazelcast's advice of under ~100 MB
   * each. Members with different counts cannot form one cluster: upgrading across this change is a
   * restart of the whole cluster, not a rolling one.
   */
  private static final int PARTITION_COUNT = 31;

  private HazelcastSettings() {
  }

  public static HazelcastClusterManager clusterManager(ClusterSettings s) {
    Config c = ConfigUtil.loadConfig();
    c.setClusterName("ax");
    c.setProperty("hazelcast.phone.home.enabled", "false");
    c.setProperty("hazelcast.logging.type", "jdk");
    c.setProperty("hazelcast.socket.bind.any", "false");
    // Members are listed explicitly, so there is nothing to wait for before joining (5.4 s → 0.5 s).
    c.setProperty("hazelcast.wait.seconds.before.join", "0");
    // A killed member is noticed by missing heartbeats; the defaults (60 s) would keep the event bus
    // routing to a dead node long after the leader lease moved on.
    c.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
    c.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    c.setProperty("hazelcast.partition.count", Integer.toString(PARTITION_COUNT));
    NetworkConfig net = c.getNetworkConfig();
    net.setPort(s.port()).setPortAutoIncrement(false);
    net.getInterfaces().setEnabled(true).addInterface(s.host());
    JoinConfig join = net.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    // How long a starting member asks the listed members for a master before it claims mastership itself
    // (Hazelcast's default: 5 s). Members started together all wait it out, so the default cost a three-node
    // start 8-10 s of joining; nothing here depends on who is Hazelcast's master (the leader lease is in
    // PostgreSQL), and a member that claims too early is merged into the other cluster a moment later.
    join.getTcpIpConfig().setEnabled(true).setMembers(s.members()).setConnectionTimeoutSeconds(1);
    return new HazelcastClusterManager(c);
  }
}
