package ax.verticles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LeaderVerticleTest {

  @Test
  void aStandbyUpLongerTriesForAResignedLeaseSooner() {
    assertEquals(LeaderVerticle.COLD_STANDBY_DEFERRAL_MS, LeaderVerticle.tryAfterResignationMs(0));
    long restartedAMomentAgo = LeaderVerticle.tryAfterResignationMs(12_000);
    long upSinceTheClusterStarted = LeaderVerticle.tryAfterResignationMs(40_000);
    assertTrue(upSinceTheClusterStarted < restartedAMomentAgo,
        upSinceTheClusterStarted + " ms should be sooner than " + restartedAMomentAgo + " ms");
    assertEquals(0, LeaderVerticle.tryAfterResignationMs(LeaderVerticle.WARM_AFTER_MS));
    assertEquals(0, LeaderVerticle.tryAfterResignationMs(Long.MAX_VALUE / 2));
  }
}
