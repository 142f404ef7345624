package ax.delivery;

import ax.task.OutcomeTally;

/**
 * What the executor dispatch tells the outside about its decisions, for metrics and logs. Called on the
 * dispatch's own thread; implementations must not block.
 */
public interface DispatchObserver {
  /** {@code registered}, {@code suspect}, {@code offline}, {@code draining} or {@code left}. */
  void executorEvent(String executorId, String event);

  /** Messages refused: {@code heartbeat} from an unknown session, {@code result} items not applied. */
  void refused(String kind, int count);

  /**
   * Outcomes the database accepted (results, and the failures of tasks an OFFLINE executor held); those
   * refused as late are not in it.
   */
  void outcomes(OutcomeTally tally);

  /** Retries (or re-fires) scheduled by recorded outcomes. */
  void retriesScheduled(int count);

  /** A dispatch went unanswered (no ack within the ack timeout); its tasks go back to READY. */
  void dispatchUnanswered(String executorId, int tasks);

  /** An OFFLINE executor's tasks were handed to the retry policy. */
  void offlineSettled(String executorId, int tasks);

  /** Tasks a live executor never answered for, past their deadline: their room is given back. */
  void roomGivenBack(int tasks);

  /**
   * This node's health checks stopped for {@code gapMs} (a GC pause, a stopped or starved process): missed
   * heartbeats are counted again from now, not over the time it was not looking.
   */
  void notWatching(long gapMs);

  DispatchObserver NONE = new DispatchObserver() {
    @Override
    public void executorEvent(String executorId, String event) {
    }

    @Override
    public void refused(String kind, int count) {
    }

    @Override
    public void outcomes(OutcomeTally tally) {
    }

    @Override
    public void retriesScheduled(int count) {
    }

    @Override
    public void dispatchUnanswered(String executorId, int tasks) {
    }

    @Override
    public void offlineSettled(String executorId, int tasks) {
    }

    @Override
    public void roomGivenBack(int tasks) {
    }

    @Override
    public void notWatching(long gapMs) {
    }
  };
}
