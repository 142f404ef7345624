package ax.delivery;

import ax.task.ReadyTask;

import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Splits READY tasks of one processor over executors, one selector decision per task, and keeps each
 * executor's free slots up to date as tasks are assigned so one pass never overfills anybody. Tasks no
 * executor can take are returned as leftovers: they wait READY (backpressure), they are never forced.
 */
public final class DispatchPlanner {
  private DispatchPlanner() {
  }

  /** Tasks per executor, in assignment order, and what nobody could take. */
  public record Plan(Map<String, List<ReadyTask>> byExecutor, List<ReadyTask> leftovers) {
  }

  public static Plan plan(List<ReadyTask> tasks, List<ExecutorView> candidates,
                          Function<String, ExecutorSelector> selectorForTaskType) {
    Map<String, ExecutorView> views = new HashMap<>();
    for (ExecutorView v : candidates) {
      views.put(v.executorId(), v);
    }
    Map<String, List<ReadyTask>> byExecutor = new LinkedHashMap<>();
    List<ReadyTask> leftovers = new ArrayList<>();
    for (ReadyTask t : tasks) {
      Optional<String> chosen = selectorForTaskType.apply(t.taskType())
          .choose(List.copyOf(views.values()), Long.toString(t.taskId()));
      if (chosen.isEmpty() || !views.containsKey(chosen.get())) {
        leftovers.add(t);
        continue;
      }
      ExecutorView v = views.get(chosen.get());
      byExecutor.computeIfAbsent(v.executorId(), id -> new ArrayList<>()).add(t);
      int free = v.freeThreads() - 1;
      views.put(v.executorId(), new ExecutorView(v.executorId(), v.zone(), free, v.backlog(), v.cpuLoad(),
          v.available() && free > 0));
    }
    return new Plan(byExecutor, leftovers);
  }
}
