package ax.store;

import ax.task.NewTask;
import ax.task.TaskStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FingerprintRoundsTest {
  private static final UUID A = new UUID(1, 1);
  private static final UUID B = new UUID(2, 2);

  private static NewTask task(long id, UUID fingerprint) {
    return new NewTask(id, "t", "k", "type", 0, TaskStatus.DELAYED, 5, 2, 60_000, "http://127.0.0.1:9/", null,
        null, null, 1, null, fingerprint);
  }

  private static List<List<Long>> ids(List<List<NewTask>> rounds) {
    return rounds.stream().map(r -> r.stream().map(NewTask::taskId).toList()).toList();
  }

  @Test
  void distinctFingerprintsAndNoneAreOneRoundInRequestOrder() {
    assertEquals(List.of(List.of(1L, 2L, 3L, 4L)),
        ids(FingerprintRounds.of(List.of(task(1, A), task(2, null), task(3, B), task(4, null)))));
  }

  @Test
  void theKthCopyOfAFingerprintIsInRoundK() {
    assertEquals(List.of(List.of(1L, 2L, 4L), List.of(3L, 5L), List.of(6L)),
        ids(FingerprintRounds.of(List.of(task(1, A), task(2, B), task(3, A), task(4, null), task(5, B), task(6, A)))));
  }

  @Test
  void anEmptyBatchHasNoRounds() {
    assertEquals(List.of(), FingerprintRounds.of(List.of()));
  }
}
