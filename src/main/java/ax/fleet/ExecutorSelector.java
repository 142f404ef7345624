package ax.fleet;

import java.util.List;
import java.util.Optional;

/**
 * Picks the executor for one task. An empty answer means no candidate can take work now: the caller
 * keeps the task READY and offers it again next round (backpressure), it never forces it on a busy
 * executor.
 */
public interface ExecutorSelector {

  /**
   * @param candidates the executors serving the task's processor, available or not
   * @param routingKey what hashing strategies key on (task id or task type); others ignore it
   */
  Optional<String> choose(List<ExecutorView> candidates, String routingKey);
}
