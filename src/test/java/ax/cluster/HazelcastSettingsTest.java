package ax.cluster;

import ax.config.AxConfig.ClusterSettings;
import com.hazelcast.config.Config;
import com.hazelcast.config.TcpIpConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HazelcastSettingsTest {
  private final Config config = HazelcastSettings.clusterManager(
      new ClusterSettings(List.of("10.0.0.1:5701", "10.0.0.2:5701"), 5701, "10.0.0.1")).getConfig();

  @Test
  void aClusterHasFewPartitionsSoThatAJoinOrALeaveMigratesLittle() {
    assertEquals("31", config.getProperty("hazelcast.partition.count"));
  }

  @Test
  void membersJoinOnlyTheListedAddressesOverTcp() {
    TcpIpConfig tcp = config.getNetworkConfig().getJoin().getTcpIpConfig();
    assertTrue(tcp.isEnabled());
    assertEquals(List.of("10.0.0.1:5701", "10.0.0.2:5701"), tcp.getMembers());
    assertFalse(config.getNetworkConfig().getJoin().getMulticastConfig().isEnabled());
    assertFalse(config.getNetworkConfig().getJoin().getAutoDetectionConfig().isEnabled());
    assertEquals(5701, config.getNetworkConfig().getPort());
    assertFalse(config.getNetworkConfig().isPortAutoIncrement());
    assertEquals("ax", config.getClusterName());
  }
}
