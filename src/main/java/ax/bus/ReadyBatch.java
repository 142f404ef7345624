package ax.bus;

import ax.task.ReadyTask;

import java.util.List;

/** Processor tasks made READY by a claim, on their way to the leader's executor dispatch (local message). */
public record ReadyBatch(List<ReadyTask> tasks) {
  public ReadyBatch {
    tasks = List.copyOf(tasks);
  }
}
