package example.billing;

import ax.executor.ExecutionRecorder;
import ax.executor.TaskContext;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An ExecutionRecorder bean: the starter hands it to the executor, which reports every execution started. */
@Component
class StartedTasks implements ExecutionRecorder {
  final List<String> started = new CopyOnWriteArrayList<>();

  @Override
  public void started(TaskContext ctx) {
    started.add(ctx.processor() + " " + ctx.taskId() + " " + ctx.attempt());
  }
}
