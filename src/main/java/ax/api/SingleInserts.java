package ax.api;

import ax.store.StoreErrors;
import ax.store.TaskStore;
import ax.task.NewTask;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Single submissions of plain tasks (no shards, no parents) inserted together when they arrive
 * together: {@link InsertPacing} decides, {@link TaskStore#insertGroup} writes a group in
 * one autocommit statement. Each submission is still answered only after its row committed, and
 * each gets its own answer: a task stored, or the existing one it duplicated (biz_key, or the
 * fingerprint rule: each row of a group locks its fingerprint's gate and checks as a lone insert does,
 * so the rule holds inside a group and against every other writer). A lone submission is one statement
 * too ({@link TaskStore#insert(NewTask)}).
 *
 * <p>A group whose statement fails for a reason other than the database being unavailable (a value one
 * row's constraint refuses, a deadlock with a batch) is inserted again one task at a time, so one bad
 * task fails only its own submission. The statement is atomic, so nothing of the group was written.
 *
 * <p>One pacing per event loop, used from that loop only (the pool answers on the caller's context), so
 * no locks. Off an event loop a submission is inserted alone.
 */
final class SingleInserts {
  /** Statements out at once per event loop before submissions wait to go together. */
  static final int MAX_IN_FLIGHT = 2;
  /** The batch endpoint's size: a statement of this many rows is known to work. */
  static final int MAX_GROUP = 1000;

  private record Pending(NewTask task, Promise<TaskStore.Inserted> answer) {
  }

  /**
   * In a group, tenants' biz_keys in one order, so two groups racing with the same keys wait for each
   * other instead of deadlocking. The statement keeps this order among rows of equal fingerprint (and
   * those without one, dedupe off); the rest go in fingerprint order, the gates' (TaskStore.INSERT_GROUP).
   * A deadlock left (equal keys under unequal fingerprints, in opposite orders) fails the statement and
   * its tasks go in one at a time.
   */
  private static final Comparator<Pending> BY_BIZ_KEY = Comparator
      .comparing((Pending p) -> p.task().bizKey() == null ? "" : p.task().tenantId() + '\u0000' + p.task().bizKey());

  private final TaskStore tasks;
  /** Statements sent, alone or grouped (fallbacks not counted): how well submissions share them. */
  private final LongAdder statements = new LongAdder();
  private final ThreadLocal<InsertPacing<Pending>> perLoop =
      ThreadLocal.withInitial(() -> new InsertPacing<>(MAX_IN_FLIGHT, MAX_GROUP));

  SingleInserts(TaskStore tasks) {
    this.tasks = tasks;
  }

  /** Whether {@link #insert} takes this task; the others go through {@link TaskStore#insert(NewTask, long[])}. */
  static boolean takes(NewTask t, long[] shardIds) {
    return shardIds.length == 0 && t.shardTotal() == 1;
  }

  /** Inserts (committed) a task {@link #takes} accepts, alone or with others arriving at the same time. */
  Future<TaskStore.Inserted> insert(NewTask task) {
    if (!Context.isOnEventLoopThread()) {
      return tasks.insert(task);
    }
    InsertPacing<Pending> pacing = perLoop.get();
    Pending p = new Pending(task, Promise.promise());
    send(pacing, pacing.arrived(p));
    return p.answer().future();
  }

  private void send(InsertPacing<Pending> pacing, List<Pending> group) {
    if (group.isEmpty()) {
      return;
    }
    statements.increment();
    Future<Void> done;
    if (group.size() == 1) {
      Pending only = group.get(0);
      done = tasks.insert(only.task()).onComplete(only.answer()).mapEmpty();
    } else {
      List<Pending> ordered = new ArrayList<>(group);
      ordered.sort(BY_BIZ_KEY);
      done = tasks.insertGroup(ordered.stream().map(Pending::task).toList()).compose(stored -> {
        for (int i = 0; i < ordered.size(); i++) {
          ordered.get(i).answer().complete(stored.get(i));
        }
        return Future.<Void>succeededFuture();
      }, failure -> StoreErrors.isUnavailable(failure) ? failAll(ordered, failure) : oneByOne(ordered));
    }
    // recover: every answer is settled by now; the next group goes whatever this one's outcome
    done.recover(e -> Future.succeededFuture()).onComplete(v -> send(pacing, pacing.returned()));
  }

  long statements() {
    return statements.sum();
  }

  private static Future<Void> failAll(List<Pending> group, Throwable failure) {
    group.forEach(p -> p.answer().fail(failure));
    return Future.succeededFuture();
  }

  private Future<Void> oneByOne(List<Pending> group) {
    List<Future<TaskStore.Inserted>> each = new ArrayList<>(group.size());
    for (Pending p : group) {
      each.add(tasks.insert(p.task()).onComplete(p.answer()));
    }
    return Future.join(each).mapEmpty();
  }
}
