package ax.api;

import ax.store.Database;
import ax.store.StoreErrors;
import ax.store.TaskStore;
import ax.task.Fingerprint;
import ax.task.NewTask;
import ax.task.TaskStatus;
import ax.testing.TestPostgres;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Single submissions arriving together on one event loop share statements, against a real PostgreSQL:
 * every one answered with its own row (committed), biz_key repeats inside a group answered as duplicates
 * of the one stored, and a row the table refuses fails only its own submission.
 */
@ExtendWith(VertxExtension.class)
class SingleInsertsTest {
  private static final AtomicLong IDS = new AtomicLong(70_000_000);
  private static TestPostgres pg;
  private static Vertx poolVertx;
  private static Pool pool;
  private static TaskStore tasks;

  @BeforeAll
  static void database() {
    pg = TestPostgres.create();
    PgConnectOptions o = Database.connectOptions(pg.url());
    Database.migrate(o);
    poolVertx = Vertx.vertx();
    pool = Database.pool(poolVertx, o, 4);
    tasks = new TaskStore(pool);
  }

  @AfterAll
  static void drop() {
    pool.close().await();
    poolVertx.close().await();
    pg.close();
  }

  @BeforeEach
  void emptyTable() {
    pool.query("TRUNCATE tasks, task_attempts").execute().await();
  }

  private static NewTask task(String bizKey, int priority) {
    return new NewTask(IDS.incrementAndGet(), "tenant-a", "key-a", "coupon.grant", System.currentTimeMillis() + 3_600_000,
        TaskStatus.DELAYED, priority, 2, 60_000, "http://127.0.0.1:9/hook", null, "{\"user\":42}", bizKey);
  }

  private static long rows() {
    return pool.query("SELECT count(*) FROM tasks").execute().await().iterator().next().getLong(0);
  }

  /**
   * Submits every task at once from one event loop, as concurrent requests on one API verticle would,
   * then checks the answers and the number of rows stored.
   */
  private static void submitTogether(SingleInserts singles, List<NewTask> all, VertxTestContext test,
                                     java.util.function.BiConsumer<List<Future<TaskStore.Inserted>>, Long> then) {
    // On the pool's Vert.x, as on a node (one Vert.x): the pool then answers on this event loop, which alone
    // drives SingleInserts' pacing. From another Vert.x's loop its answers came on the pool's own thread,
    // racing the submissions (a test-only race: 4 statements instead of 3, seen once).
    poolVertx.runOnContext(v -> {
      Thread loop = Thread.currentThread();
      java.util.concurrent.atomic.AtomicBoolean answeredElsewhere = new java.util.concurrent.atomic.AtomicBoolean();
      List<Future<TaskStore.Inserted>> answers = new ArrayList<>();
      all.forEach(t -> answers.add(singles.insert(t)
          .onComplete(ar -> answeredElsewhere.compareAndSet(false, Thread.currentThread() != loop))));
      Future.join(answers).transform(done -> pool.query("SELECT count(*) FROM tasks").execute())
          .onComplete(test.succeeding(count -> test.verify(() -> {
            assertFalse(answeredElsewhere.get(), "every answer on the submitting event loop");
            then.accept(answers, count.iterator().next().getLong(0));
            test.completeNow();
          })));
    });
  }

  /** Of equal submissions one was stored, and every one was answered with it; the others as {@code reason}. */
  private static void assertOneStoredTheRestItsDuplicates(List<Future<TaskStore.Inserted>> answers,
                                                          TaskStore.DuplicateReason reason) {
    List<TaskStore.Inserted> equal = answers.stream().map(Future::result).toList();
    assertEquals(1, equal.stream().filter(r -> !r.duplicate()).count(), "one of the " + equal.size() + " stored");
    long stored = equal.stream().filter(r -> !r.duplicate()).findFirst().orElseThrow().task().taskId();
    equal.forEach(r -> assertEquals(stored, r.task().taskId(), "each answered with the stored task"));
    equal.stream().filter(TaskStore.Inserted::duplicate).forEach(r -> assertEquals(reason, r.duplicateReason()));
  }

  @Test
  void twoHundredSubmittedAtOnceAreEachStoredInAFewStatements(VertxTestContext test) {
    SingleInserts singles = new SingleInserts(tasks);
    List<NewTask> all = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      all.add(task(null, 5));
    }
    submitTogether(singles, all, test, (answers, rows) -> {
      Set<Long> ids = new HashSet<>();
      for (int i = 0; i < all.size(); i++) {
        assertTrue(answers.get(i).succeeded(), String.valueOf(answers.get(i).cause()));
        TaskStore.Inserted ins = answers.get(i).result();
        assertFalse(ins.duplicate());
        assertEquals(all.get(i).taskId(), ins.task().taskId(), "each answered with its own task");
        ids.add(ins.task().taskId());
      }
      assertEquals(200, ids.size());
      assertEquals(200, rows, "every answer had its row committed");
      assertTrue(singles.statements() <= 2 + 1, "2 alone, then the 198 waiting in one: " + singles.statements());
    });
  }

  @Test
  void aBizKeyRepeatedInOneGroupIsStoredOnceAndTheOthersAnsweredWithIt(VertxTestContext test) {
    SingleInserts singles = new SingleInserts(tasks);
    List<NewTask> all = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      all.add(task(i < 2 ? null : "order-7", 5)); // the first two go alone, the eight repeats wait together
    }
    submitTogether(singles, all, test, (answers, rows) -> {
      answers.forEach(a -> assertTrue(a.succeeded(), String.valueOf(a.cause())));
      assertOneStoredTheRestItsDuplicates(answers.subList(2, 10), TaskStore.DuplicateReason.BIZ_KEY);
      assertEquals(3, rows);
    });
  }

  /** The default submission: dedupe on, so it carries the fingerprint of its tenant, type and payload. */
  private static NewTask fingerprinted(String payload) {
    NewTask t = task(null, 5);
    return new NewTask(t.taskId(), t.tenantId(), t.apiKey(), t.taskType(), t.triggerTimeMs(), t.status(), t.priority(),
        t.maxRetry(), t.timeoutMs(), t.callbackUrl(), t.processor(), payload, null, 1, null,
        Fingerprint.of(t.tenantId(), t.taskType(), Fingerprint.payloadDigest(payload)));
  }

  @Test
  void fingerprintedSubmissionsGoTogetherAndTheRuleHoldsInsideAGroup(VertxTestContext test) {
    SingleInserts singles = new SingleInserts(tasks);
    List<NewTask> all = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      all.add(fingerprinted("{\"user\":" + i + "}"));
    }
    for (int i = 0; i < 6; i++) {
      all.add(fingerprinted("{\"user\":\"same\"}")); // equal payloads due at the same time: one task
    }
    assertTrue(SingleInserts.takes(all.get(0), new long[0]), "the API sends them here (TaskSubmitter)");
    submitTogether(singles, all, test, (answers, rows) -> {
      answers.forEach(a -> assertTrue(a.succeeded(), String.valueOf(a.cause())));
      for (int i = 0; i < 50; i++) {
        assertFalse(answers.get(i).result().duplicate(), "distinct payloads are distinct tasks");
        assertEquals(all.get(i).taskId(), answers.get(i).result().task().taskId());
      }
      assertOneStoredTheRestItsDuplicates(answers.subList(50, 56), TaskStore.DuplicateReason.FINGERPRINT);
      assertEquals(51, rows);
      assertTrue(singles.statements() <= 2 + 1, "2 alone, then the 54 waiting together: " + singles.statements());
    });
  }

  @Test
  void aRowTheTableRefusesFailsOnlyItsOwnSubmission(VertxTestContext test) {
    SingleInserts singles = new SingleInserts(tasks);
    List<NewTask> all = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      all.add(task(null, i == 7 ? 42 : 5)); // priority 42 breaks CHECK (priority BETWEEN 0 AND 9)
    }
    submitTogether(singles, all, test, (answers, rows) -> {
      for (int i = 0; i < all.size(); i++) {
        if (i == 7) {
          assertTrue(answers.get(i).failed());
          assertTrue(StoreErrors.isRefusedValue(answers.get(i).cause()), String.valueOf(answers.get(i).cause()));
        } else {
          assertTrue(answers.get(i).succeeded(), i + ": " + answers.get(i).cause());
          assertFalse(answers.get(i).result().duplicate());
        }
      }
      assertEquals(11, rows);
    });
  }

  @Test
  void offAnEventLoopASubmissionIsInsertedAlone() {
    SingleInserts singles = new SingleInserts(tasks);
    TaskStore.Inserted ins = singles.insert(task(null, 5)).await();
    assertFalse(ins.duplicate());
    assertEquals(1, rows());
    assertEquals(0, singles.statements(), "not paced");
  }
}
