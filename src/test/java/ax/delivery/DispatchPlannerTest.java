package ax.delivery;

import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorView;
import ax.task.ReadyTask;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DispatchPlannerTest {
  /** Picks the available executor with the most free slots: deterministic, to test the bookkeeping. */
  private static final ExecutorSelector MOST_FREE = (views, key) -> views.stream()
      .filter(ExecutorView::available)
      .max((a, b) -> Integer.compare(a.freeThreads(), b.freeThreads()))
      .map(ExecutorView::executorId);

  private static List<ReadyTask> tasks(int n) {
    List<ReadyTask> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(new ReadyTask(i, "t", "p", 5, i, i, 1_000, null, 0, 2, 1, 0, null));
    }
    return out;
  }

  @Test
  void neverAssignsMoreThanAnExecutorHasRoomFor() {
    List<ExecutorView> views = List.of(new ExecutorView("a", null, 3, 0, 0, true),
        new ExecutorView("b", null, 2, 0, 0, true));
    DispatchPlanner.Plan plan = DispatchPlanner.plan(tasks(8), views, type -> MOST_FREE);
    assertEquals(3, plan.byExecutor().get("a").size());
    assertEquals(2, plan.byExecutor().get("b").size());
    assertEquals(3, plan.leftovers().size(), "the rest waits READY");
  }

  @Test
  void nothingIsForcedWhenNobodyHasRoom() {
    List<ExecutorView> views = List.of(new ExecutorView("a", null, 0, 4, 0, false));
    DispatchPlanner.Plan plan = DispatchPlanner.plan(tasks(2), views, type -> MOST_FREE);
    assertEquals(0, plan.byExecutor().size());
    assertEquals(2, plan.leftovers().size());
  }

  @Test
  void anUnknownChoiceIsALeftover() {
    ExecutorSelector confused = (views, key) -> Optional.of("nobody");
    DispatchPlanner.Plan plan = DispatchPlanner.plan(tasks(1), List.of(new ExecutorView("a", null, 1, 0, 0, true)),
        type -> confused);
    assertEquals(1, plan.leftovers().size());
  }
}
