package ax.bus;

import ax.wheel.ScheduledTask;

import java.util.List;

/** An immutable batch of tasks travelling between verticles of one node. */
public record TaskBatch(List<ScheduledTask> tasks) {
  public TaskBatch {
    tasks = List.copyOf(tasks);
  }
}
