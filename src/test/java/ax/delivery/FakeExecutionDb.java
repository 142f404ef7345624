package ax.delivery;

import ax.delivery.DispatchCommand.Complete;
import ax.delivery.DispatchCommand.LoadHeld;
import ax.delivery.DispatchCommand.LoadReady;
import ax.delivery.DispatchCommand.LookUpAttempts;
import ax.delivery.DispatchCommand.Release;
import ax.delivery.DispatchCommand.WriteAcks;
import ax.delivery.DispatchCommand.WriteDispatch;
import ax.task.Attempt;
import ax.task.AttemptBudget;
import ax.task.Completion;
import ax.task.ReadyTask;
import ax.task.Settled;
import ax.task.TaskStatus;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tasks table as the executor dispatch's statements see it, in memory: enough to answer each command
 * the way {@code ExecutionStore} would (guarded by status, attempt and executor), so tests can drive the
 * dispatch through whole hand-overs. The lease fence is not modelled: the tests change terms through the
 * dispatch itself.
 */
final class FakeExecutionDb {
  static final class Row {
    final ReadyTask task;
    TaskStatus status = TaskStatus.READY;
    int attempt;
    int retryCount;
    String executor;

    Row(ReadyTask task) {
      this.task = task;
    }
  }

  final Map<Long, Row> rows = new LinkedHashMap<>();

  ReadyTask add(long id, String processor) {
    return add(id, processor, 1_000);
  }

  ReadyTask add(long id, String processor, long dueMs) {
    ReadyTask t = new ReadyTask(id, "t", processor, 5, dueMs, dueMs, 60_000, null, 0, 2, 1, 0, null);
    rows.put(id, new Row(t));
    return t;
  }

  Row row(long id) {
    return rows.get(id);
  }

  List<Attempt> dispatch(WriteDispatch w) {
    List<Attempt> out = new ArrayList<>();
    for (long id : w.taskIds()) {
      Row r = rows.get(id);
      if (r != null && (r.status == TaskStatus.READY || r.status == TaskStatus.DELAYED)) {
        r.status = TaskStatus.DISPATCHING;
        r.attempt++;
        r.executor = w.executorId();
        out.add(new Attempt(id, r.attempt));
      }
    }
    return out;
  }

  void acks(WriteAcks w) {
    for (Attempt a : w.attempts()) {
      Row r = rows.get(a.taskId());
      if (r.status == TaskStatus.DISPATCHING && r.attempt == a.attempt() && w.executorId().equals(r.executor)) {
        r.status = TaskStatus.RUNNING;
      }
    }
  }

  List<Long> release(Release rel) {
    List<Long> out = new ArrayList<>();
    for (Attempt a : rel.attempts()) {
      Row r = rows.get(a.taskId());
      if (r.status == TaskStatus.DISPATCHING && r.attempt == a.attempt() && rel.executorId().equals(r.executor)) {
        r.status = TaskStatus.READY;
        r.executor = null;
        out.add(a.taskId());
      }
    }
    return out;
  }

  List<AttemptBudget> budgets(LookUpAttempts l) {
    List<AttemptBudget> out = new ArrayList<>();
    for (long id : l.taskIds()) {
      Row r = rows.get(id);
      if (r != null && inFlight(r) && l.executorId().equals(r.executor)) {
        out.add(new AttemptBudget(id, r.attempt, r.retryCount, 2, 0));
      }
    }
    return out;
  }

  List<AttemptBudget> held(LoadHeld l) {
    List<AttemptBudget> out = new ArrayList<>();
    rows.forEach((id, r) -> {
      if (inFlight(r) && l.executorId().equals(r.executor)) {
        out.add(new AttemptBudget(id, r.attempt, r.retryCount, 2, 0));
      }
    });
    return out;
  }

  List<Settled> complete(Complete c) {
    List<Settled> out = new ArrayList<>();
    for (Completion done : c.batch()) {
      Row r = rows.get(done.taskId());
      if (inFlight(r) && r.attempt == done.attempt() && c.executorId().equals(r.executor)) {
        r.status = done.status();
        r.retryCount = done.retryCount();
        out.add(new Settled(done.taskId(), done.status(), Math.max(0, done.nextDueMs()), 5, done.resultJson(),
            done.error(), null));
      }
    }
    return out;
  }

  List<ReadyTask> loadReady(LoadReady l) {
    List<ReadyTask> out = new ArrayList<>();
    for (Row r : rows.values()) {
      if (out.size() < l.limit() && r.status == TaskStatus.READY && l.processors().contains(r.task.processor())) {
        out.add(r.task);
      }
    }
    return out;
  }

  /** Tasks a retry made DELAYED become due again (the wheel would fire them). */
  List<ReadyTask> dueAgain(Collection<Long> ids) {
    List<ReadyTask> out = new ArrayList<>();
    for (long id : ids) {
      Row r = rows.get(id);
      if (r.status == TaskStatus.DELAYED) {
        out.add(r.task);
      }
    }
    return out;
  }

  static boolean inFlight(Row r) {
    return r != null && (r.status == TaskStatus.DISPATCHING || r.status == TaskStatus.RUNNING);
  }
}
