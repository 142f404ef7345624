package ax.bus;

import ax.leader.LeaderTerm;
import io.vertx.core.Vertx;

/**
 * The node's current {@link LeaderTerm}, readable from any thread (the API's event loops ask it on
 * every submission to decide how to reach the leader's wheel). Updated from
 * {@link Addresses#LEADER_CHANGED}.
 */
public final class LeaderWatch {
  private volatile LeaderTerm term;

  private LeaderWatch() {
  }

  public static LeaderWatch attach(Vertx vertx) {
    LeaderWatch w = new LeaderWatch();
    vertx.eventBus().<LeaderTerm>localConsumer(Addresses.LEADER_CHANGED, msg -> w.term = msg.body());
    return w;
  }

  public boolean isLeader() {
    LeaderTerm t = term;
    return t != null && t.leader();
  }
}
