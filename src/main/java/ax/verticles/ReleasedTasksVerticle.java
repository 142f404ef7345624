package ax.verticles;

import ax.bus.Addresses;
import ax.bus.LocalCodec;
import ax.bus.TaskBatch;
import ax.clock.DbClock;
import ax.leader.LeaderTerm;
import ax.metrics.AxMetrics;
import ax.store.ReadyAnnouncements;
import ax.store.ReadyListener;
import ax.wheel.ScheduledTask;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;

/**
 * Hands tasks that PostgreSQL let go to the leader's wheel: dependency children whose last parent
 * succeeded and occurrences the overlap policy released are set DELAYED/READY by triggers (V10), in
 * whatever transaction settled their parent — often on another node, or in a cancel. The triggers
 * announce them on {@link ReadyAnnouncements#READY_CHANNEL} after commit; this verticle listens while
 * its node leads. An announcement made while no leader listens is not lost work: the task is in
 * PostgreSQL, and the recovery scan re-queues due tasks it finds waiting (tens of seconds instead of
 * milliseconds). Also counts dependency skips ({@link ReadyAnnouncements#SKIPPED_CHANNEL}) as a metric.
 */
public final class ReleasedTasksVerticle extends TermBoundVerticle {
  private final ReadyListener.Connector connector;
  private final DbClock clock;
  private final AxMetrics metrics;
  private final long loadWindowMs;
  private ReadyListener listener;

  /** @param loadWindowMs tasks due later than this are left to the loader, like new submissions */
  public ReleasedTasksVerticle(ReadyListener.Connector connector, DbClock clock, AxMetrics metrics, long loadWindowMs) {
    this.connector = connector;
    this.clock = clock;
    this.metrics = metrics;
    this.loadWindowMs = loadWindowMs;
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    if (listener == null) {
      listener = connector.open(vertx, this::released, metrics::recordDependencySkips);
      listener.start();
    }
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    if (!leading() && listener != null) {
      listener.stop();
      listener = null;
    }
  }

  @Override
  public Future<?> stop() {
    return listener == null ? Future.succeededFuture() : listener.stop();
  }

  private void released(List<ScheduledTask> tasks) {
    if (!leading()) {
      return;
    }
    long horizon = clock.nowMillis() + loadWindowMs;
    List<ScheduledTask> due = new ArrayList<>(tasks.size());
    for (ScheduledTask t : tasks) {
      if (t.triggerTimeMs() <= horizon) {
        due.add(t);
      }
    }
    metrics.recordReleased(tasks.size());
    if (!due.isEmpty()) {
      vertx.eventBus().send(Addresses.WHEEL_SCHEDULE, new TaskBatch(due), LocalCodec.localOnly());
    }
  }
}
