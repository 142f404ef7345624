package ax.delivery;

import ax.delivery.DispatchCommand.Answer;
import ax.delivery.DispatchCommand.ArmAckFlush;
import ax.delivery.DispatchCommand.Complete;
import ax.delivery.DispatchCommand.FailSync;
import ax.delivery.DispatchCommand.LoadHeld;
import ax.delivery.DispatchCommand.LookUpAttempts;
import ax.delivery.DispatchCommand.Push;
import ax.delivery.DispatchCommand.Release;
import ax.delivery.DispatchCommand.ToWheel;
import ax.delivery.DispatchCommand.WriteAcks;
import ax.delivery.DispatchCommand.WriteDispatch;
import ax.fleet.ExecutorRegistry.Load;
import ax.fleet.ExecutorRegistry.Registration;
import ax.fleet.ExecutorSelector;
import ax.fleet.ExecutorView;
import ax.task.Attempt;
import ax.task.OutcomePolicy;
import ax.task.OutcomeTally;
import ax.task.ReadyTask;
import ax.task.RetryBackoff;
import ax.task.TaskStatus;
import ax.wheel.ScheduledTask;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The executor dispatch driven event by event, with time given explicitly and an in-memory tasks table
 * answering its writes: every scenario of a hand-over that the leader must get right, without Vert.x.
 */
class ExecutorDispatchTest {
  static final long HB = 1_000;
  /** Picks the available executor with the most room: deterministic. */
  static final ExecutorSelector MOST_ROOM = (views, key) -> views.stream().filter(ExecutorView::available)
      .max((a, b) -> Integer.compare(a.freeThreads(), b.freeThreads())).map(ExecutorView::executorId);
  static final Load IDLE = new Load(4, 0, 0.1, 0, 0, 0);

  private final FakeExecutionDb db = new FakeExecutionDb();
  private ExecutorDispatch dispatch;
  private final List<String> events = new ArrayList<>();
  private long requestIds = 100;
  private String session;

  @BeforeEach
  void leadWithOneLiveExecutor() {
    dispatch = new ExecutorDispatch(DispatchSettings.of(HB, 2_000, 1_000), new OutcomePolicy(RetryBackoff.of(10_000)),
        type -> MOST_ROOM, new RecordingObserver(events));
    assertTrue(dispatch.startTerm(7, 0).isEmpty());
    session = register("ex-1", 2, 1, 0);
    heartbeat("ex-1", session, 0);
  }

  // ---- helpers

  static Registration registration(String id, int threads, int buffer) {
    return new Registration(id, Set.of("p"), Map.of("default", threads), buffer, null);
  }

  private String register(String id, int threads, int buffer, long now) {
    List<DispatchCommand> out = dispatch.register(requestIds++, id, registration(id, threads, buffer), now);
    Reply.Registered r = (Reply.Registered) only(out, Answer.class).reply();
    return r.session();
  }

  private List<DispatchCommand> heartbeat(String id, String s, long now) {
    return dispatch.heartbeat(requestIds++, id, s, IDLE, now);
  }

  /** Ticks at the node's cadence from {@code fromMs} up to and including {@code toMs}; the commands of the last. */
  private List<DispatchCommand> tickEvery(long fromMs, long toMs) {
    long step = DispatchSettings.of(HB, 2_000, 1_000).tickMs();
    List<DispatchCommand> last = List.of();
    for (long t = fromMs; t <= toMs; t += step) {
      last = dispatch.tick(t);
    }
    return last;
  }

  @SuppressWarnings("unchecked")
  static <T extends DispatchCommand> List<T> all(List<DispatchCommand> commands, Class<T> type) {
    return (List<T>) commands.stream().filter(type::isInstance).collect(Collectors.toList());
  }

  static <T extends DispatchCommand> T only(List<DispatchCommand> commands, Class<T> type) {
    List<T> found = all(commands, type);
    assertEquals(1, found.size(), "exactly one " + type.getSimpleName() + " in " + commands);
    return found.get(0);
  }

  private List<ReadyTask> tasks(int n) {
    List<ReadyTask> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(db.add(i, "p"));
    }
    return out;
  }

  /** Offers the tasks, carries out the dispatch write, and returns the push. */
  private Push readyAndWritten(int n) {
    WriteDispatch write = only(dispatch.ready(tasks(n)), WriteDispatch.class);
    return only(dispatch.dispatchWritten(write.dispatchId(), db.dispatch(write)), Push.class);
  }

  private static ReportedOutcome success(Push p, int i) {
    return new ReportedOutcome(p.tasks().get(i).taskId(), p.attempts().get(i), true, "{\"ok\":1}", null);
  }

  private static Set<Long> ids(Push p) {
    return p.tasks().stream().map(ReadyTask::taskId).collect(Collectors.toSet());
  }

  // ---- scenarios

  @Test
  void nothingIsDispatchedBeyondTheExecutorsRoom() {
    List<DispatchCommand> out = dispatch.ready(tasks(5));
    WriteDispatch write = only(out, WriteDispatch.class);
    assertEquals(3, write.taskIds().length, "2 workers + 1 buffer slot");
    assertEquals(3, dispatch.outstandingOf("ex-1"));
    assertEquals(2, dispatch.readyQueueSize(), "the rest waits (backpressure)");
  }

  @Test
  void aClaimIsWrittenInOneStatementPushedMillisecondByMillisecondAndInFlightUntilItsLastPush() {
    List<ReadyTask> claimed = List.of(db.add(1, "p", 1_000), db.add(2, "p", 1_003), db.add(3, "p", 1_000));
    WriteDispatch write = only(dispatch.ready(claimed), WriteDispatch.class);
    assertEquals(3, write.taskIds().length, "one write for every trigger millisecond of the claim");
    List<Push> pushes = all(dispatch.dispatchWritten(write.dispatchId(), db.dispatch(write)), Push.class);
    assertEquals(2, pushes.size(), "one push per trigger millisecond");
    assertEquals(1_000, pushes.get(0).notBeforeMs());
    assertEquals(Set.of(1L, 3L), ids(pushes.get(0)));
    assertEquals(1_003, pushes.get(1).notBeforeMs());
    assertEquals(Set.of(2L), ids(pushes.get(1)));
    assertNotEquals(pushes.get(0).dispatchId(), pushes.get(1).dispatchId());
    assertEquals(1, dispatch.dispatchesInFlight(), "a write counts once against maxDispatchesInFlight");

    dispatch.pushAnswered(pushes.get(0).dispatchId(), ids(pushes.get(0)));
    assertEquals(1, dispatch.dispatchesInFlight(), "in flight until its last push is answered");
    Release release = only(dispatch.pushUnanswered(pushes.get(1).dispatchId()), Release.class);
    assertEquals(List.of(new Attempt(2, 1)), release.attempts());
    assertEquals(0, dispatch.dispatchesInFlight());
  }

  @Test
  void aResultBeforeItsAckIsRecordedAndTheLateAckWritesNothing() {
    Push push = readyAndWritten(1);
    List<DispatchCommand> out = dispatch.results(1, "ex-1", List.of(success(push, 0)), List.of(), 10);
    Complete complete = only(out, Complete.class);
    only(dispatch.completed(complete.completionId(), db.complete(complete)), Answer.class);
    assertEquals(TaskStatus.SUCCESS, db.row(1).status);
    assertEquals(0, dispatch.outstandingOf("ex-1"), "its room is back");

    out = dispatch.pushAnswered(push.dispatchId(), ids(push));
    assertTrue(all(out, ArmAckFlush.class).isEmpty(), "no RUNNING write for a finished task");
    assertTrue(all(dispatch.ackFlushDue(), WriteAcks.class).isEmpty());
  }

  @Test
  void anAckedTaskIsWrittenRunningAfterTheLingerUnlessItsResultCameFirst() {
    Push push = readyAndWritten(2);
    only(dispatch.pushAnswered(push.dispatchId(), ids(push)), ArmAckFlush.class);
    // the first task finishes within the linger
    Complete complete = only(dispatch.results(1, "ex-1", List.of(success(push, 0)), List.of(), 10), Complete.class);
    dispatch.completed(complete.completionId(), db.complete(complete));
    WriteAcks acks = only(dispatch.ackFlushDue(), WriteAcks.class);
    assertEquals(List.of(new Attempt(push.tasks().get(1).taskId(), push.attempts().get(1))), acks.attempts());
    db.acks(acks);
    assertEquals(TaskStatus.RUNNING, db.row(push.tasks().get(1).taskId()).status);
    assertEquals(1, dispatch.outstandingOf("ex-1"));
  }

  @Test
  void aPushWhoseAckMayBeUnreadKeepsItsTasksWithTheExecutorAndTakesTheirResults() {
    Push push = readyAndWritten(3);
    List<DispatchCommand> out = dispatch.pushAckUnread(push.dispatchId());
    assertTrue(all(out, Release.class).isEmpty(), "not released: the executor may be running them");
    assertTrue(all(out, WriteAcks.class).isEmpty() && all(out, ArmAckFlush.class).isEmpty(), "no RUNNING write");
    assertEquals(3, dispatch.outstandingOf("ex-1"), "still the executor's");
    assertEquals(0, dispatch.dispatchesInFlight());
    assertTrue(events.stream().noneMatch(e -> e.startsWith("dispatch_unanswered")), "the executor is not stalled");
    assertEquals(TaskStatus.DISPATCHING, db.row(push.tasks().get(0).taskId()).status);

    Complete complete = only(dispatch.results(1, "ex-1", List.of(success(push, 0), success(push, 1), success(push, 2)),
        List.of(), 10), Complete.class);
    dispatch.completed(complete.completionId(), db.complete(complete));
    for (ReadyTask t : push.tasks()) {
      assertEquals(TaskStatus.SUCCESS, db.row(t.taskId()).status, "attempt 1 recorded: " + t.taskId());
    }
    assertEquals(0, dispatch.outstandingOf("ex-1"));
  }

  @Test
  void anUnansweredPushStallsTheExecutorAndItsTasksGoBackToReadyAndOutAgain() {
    Push push = readyAndWritten(3);
    List<DispatchCommand> out = dispatch.pushUnanswered(push.dispatchId());
    Release release = only(out, Release.class);
    assertEquals(0, dispatch.outstandingOf("ex-1"), "the room is back at once");
    assertTrue(all(out, WriteDispatch.class).isEmpty(), "a stalled executor gets nothing until it heartbeats");
    out = dispatch.released(release.releaseId(), db.release(release));
    assertEquals(3, dispatch.readyQueueSize());
    assertTrue(all(out, WriteDispatch.class).isEmpty());
    assertEquals(List.of("dispatch_unanswered ex-1"), events.stream().filter(e -> e.startsWith("dispatch")).toList());

    WriteDispatch again = only(heartbeat("ex-1", session, 500), WriteDispatch.class);
    Push second = only(dispatch.dispatchWritten(again.dispatchId(), db.dispatch(again)), Push.class);
    assertEquals(List.of(2, 2, 2), second.attempts(), "every hand-over is a new attempt");
  }

  @Test
  void refusedTasksOfAPushGoBackButAcceptedOnesStay() {
    Push push = readyAndWritten(3);
    long accepted = push.tasks().get(0).taskId();
    List<DispatchCommand> out = dispatch.pushAnswered(push.dispatchId(), Set.of(accepted));
    Release release = only(out, Release.class);
    assertEquals(2, release.attempts().size());
    assertEquals(1, dispatch.outstandingOf("ex-1"));
  }

  @Test
  void anExecutorGoingOfflineHasItsTasksRetriedAndMayRegisterAgainOnlyAfterwards() {
    Push push = readyAndWritten(3);
    dispatch.pushAnswered(push.dispatchId(), ids(push));
    db.acks(only(dispatch.ackFlushDue(), WriteAcks.class));
    assertTrue(all(tickEvery(250, 3 * HB), LoadHeld.class).isEmpty(), "SUSPECT first");
    tickEvery(3 * HB + 250, 4 * HB - 250);
    LoadHeld held = only(dispatch.tick(4 * HB), LoadHeld.class);
    assertEquals("ex-1", held.executorId());
    assertInstanceOf(Reply.Refused.class, only(dispatch.register(1, "ex-1", registration("ex-1", 2, 1), 4 * HB + 1),
        Answer.class).reply(), "quarantined while its tasks are settled");

    Complete failures = only(dispatch.heldLoaded("ex-1", db.held(held), 4 * HB + 2), Complete.class);
    List<DispatchCommand> out = dispatch.completed(failures.completionId(), db.complete(failures));
    ToWheel retries = only(out, ToWheel.class);
    assertEquals(3, retries.tasks().size(), "each held attempt failed with a retry scheduled");
    assertEquals(0, dispatch.outstandingOf("ex-1"));
    assertEquals(0, dispatch.handedOver());
    assertTrue(events.contains("offline ex-1"));
    String again = register("ex-1", 2, 1, 4 * HB + 3);
    assertTrue(!again.equals(session));
  }

  @Test
  void aPauseOfThisNodeIsNotCountedAsHeartbeatsTheExecutorMissed() {
    Push push = readyAndWritten(2);
    dispatch.pushAnswered(push.dispatchId(), ids(push));
    tickEvery(250, 1_000);
    // the node stops for 4 s (4 heartbeat intervals); the executor's heartbeats wait in its socket meanwhile
    List<DispatchCommand> afterPause = dispatch.tick(5_000);
    assertTrue(all(afterPause, LoadHeld.class).isEmpty(), "its tasks are not failed over the node's own pause");
    assertFalse(events.contains("offline ex-1"));
    assertTrue(events.contains("not_watching 4000"), events.toString());
    heartbeat("ex-1", session, 5_001); // the queued heartbeats arrive
    assertTrue(all(tickEvery(5_250, 9_000), LoadHeld.class).isEmpty());
    assertEquals(2, dispatch.outstandingOf("ex-1"));
    assertFalse(events.contains("offline ex-1"));
  }

  @Test
  void anExecutorThatDiedDuringThisNodesPauseIsDeclaredOfflineFourIntervalsAfterIt() {
    Push push = readyAndWritten(1);
    dispatch.pushAnswered(push.dispatchId(), ids(push));
    tickEvery(250, 1_000);
    dispatch.tick(5_000); // back from a 4 s pause; no heartbeat ever comes again
    assertTrue(all(tickEvery(5_250, 8_750), LoadHeld.class).isEmpty(), "counted from the node's return");
    assertEquals("ex-1", only(dispatch.tick(9_000), LoadHeld.class).executorId());
    assertTrue(events.contains("offline ex-1"));
  }

  @Test
  void aResultOfAnAttemptAnEarlierLeaderDispatchedIsAppliedAfterLookingUpItsBudget() {
    db.add(42, "p");
    db.dispatch(new WriteDispatch(0, "ex-1", new long[] {42})); // by the previous leader: attempt 1
    List<DispatchCommand> out = dispatch.results(5, "ex-1",
        List.of(new ReportedOutcome(42, 1, false, null, "boom"), new ReportedOutcome(43, 1, true, null, null)),
        List.of("?"), 10);
    LookUpAttempts lookUp = only(out, LookUpAttempts.class);
    Complete complete = only(dispatch.attemptsLookedUp(lookUp.requestId(), db.budgets(lookUp)), Complete.class);
    assertEquals(1, complete.batch().size(), "task 43 is not this executor's");
    out = dispatch.completed(complete.completionId(), db.complete(complete));
    Reply.ResultsRecorded answer = (Reply.ResultsRecorded) only(out, Answer.class).reply();
    assertEquals(List.of("42"), answer.applied());
    assertEquals(List.of("?", "43"), answer.refused());
    assertEquals(TaskStatus.DELAYED, db.row(42).status, "failed with retries left");
  }

  @Test
  void aResultThatCannotBeWrittenIsRefusedSoTheExecutorSendsItAgain() {
    Push push = readyAndWritten(1);
    Complete complete = only(dispatch.results(9, "ex-1", List.of(success(push, 0)), List.of(), 10), Complete.class);
    Reply reply = only(dispatch.completeFailed(complete.completionId()), Answer.class).reply();
    assertEquals(503, ((Reply.Refused) reply).code());
    assertEquals(1, dispatch.outstandingOf("ex-1"), "still out: the executor will report it again");
  }

  @Test
  void aTermChangeWithWorkInFlightDropsItAndAnswersOfTheOldTermChangeNothing() {
    Push push = readyAndWritten(2);
    WriteDispatch secondWrite = only(dispatch.ready(List.of(db.add(50, "p"))), WriteDispatch.class);
    List<DispatchCommand> syncOut = dispatch.syncAwait(77, new ScheduledTask(60, 0, 5));
    only(syncOut, ToWheel.class);

    FailSync failed = only(dispatch.endTerm(), FailSync.class);
    assertEquals(List.of(77L), failed.waiterIds());
    assertEquals(503, failed.code());
    assertEquals(0, dispatch.outstandingOf("ex-1"));

    assertTrue(dispatch.startTerm(8, 10).isEmpty());
    assertTrue(dispatch.pushAnswered(push.dispatchId(), ids(push)).isEmpty(), "an answer of the old term");
    assertTrue(dispatch.dispatchWritten(secondWrite.dispatchId(), List.of(new Attempt(50, 1))).isEmpty());
    assertTrue(dispatch.sessions().isEmpty(), "executors register again with the new term");
    assertEquals(410, ((Reply.Refused) only(heartbeat("ex-1", session, 20), Answer.class).reply()).code());
    assertEquals(0, dispatch.handedOver());
  }

  @Test
  void aSyncWaiterIsAnsweredWithTheOutcomeOrTimesOut() {
    Push push = readyAndWritten(1);
    long taskId = push.tasks().get(0).taskId();
    dispatch.syncAwait(1, new ScheduledTask(taskId, 0, 5));
    dispatch.syncAwait(2, new ScheduledTask(99, 0, 5));
    Complete complete = only(dispatch.results(3, "ex-1", List.of(success(push, 0)), List.of(), 10), Complete.class);
    DispatchCommand.AnswerSync answered = only(dispatch.completed(complete.completionId(), db.complete(complete)),
        DispatchCommand.AnswerSync.class);
    assertEquals(List.of(1L), answered.waiterIds());
    assertEquals(TaskStatus.SUCCESS, answered.outcome().status());
    assertEquals(504, only(dispatch.syncExpired(2), FailSync.class).code());
    assertTrue(dispatch.syncExpired(1).isEmpty(), "already answered");
  }

  @Test
  void registrationIsRefusedUnderAnotherExecutorsNameAndUnknownSessionsMustRegisterAgain() {
    Reply r = only(dispatch.register(1, "ex-2", registration("ex-1", 1, 0), 0), Answer.class).reply();
    assertEquals(403, ((Reply.Refused) r).code());
    assertEquals(410, ((Reply.Refused) only(heartbeat("ex-1", "not-a-session", 0), Answer.class).reply()).code());
    assertTrue(events.contains("refused heartbeat 1"));
  }

  @Test
  void aTopUpLooksOnlyForProcessorsSomeoneServesAndNothingIsQueuedFor() {
    List<DispatchCommand> out = dispatch.tick(1_000);
    DispatchCommand.LoadReady load = only(out, DispatchCommand.LoadReady.class);
    assertEquals(Set.of("p"), load.processors());
    assertTrue(all(dispatch.tick(1_500), DispatchCommand.LoadReady.class).isEmpty(), "one per interval");
    assertTrue(all(dispatch.tick(2_100), DispatchCommand.LoadReady.class).isEmpty(), "not while one is running");
    db.add(1, "p");
    WriteDispatch write = only(dispatch.toppedUp(db.loadReady(load)), WriteDispatch.class);
    assertEquals(1, write.taskIds().length);
  }

  @Test
  void anExecutorThatLeftMeanwhileGetsNoPushAndWhatWasWrittenGoesBack() {
    WriteDispatch write = only(dispatch.ready(tasks(2)), WriteDispatch.class);
    dispatch.drain(1, "ex-1", session, true); // left
    List<DispatchCommand> out = dispatch.dispatchWritten(write.dispatchId(), db.dispatch(write));
    assertTrue(all(out, Push.class).isEmpty());
    Release release = only(out, Release.class);
    assertEquals(2, release.attempts().size());
    assertEquals(0, dispatch.outstandingOf("ex-1"));
    assertEquals(Optional.empty(), dispatch.sessions().stream().findFirst());
  }

  @Test
  void aTaskALiveExecutorNeverAnswersForGivesItsRoomBackAfterItsDeadline() {
    Push push = readyAndWritten(1); // timeout_ms 60 000, ack timeout 2 000, grace 10 000
    dispatch.pushAnswered(push.dispatchId(), ids(push));
    for (long t = 1_000; t <= 72_000; t += 1_000) {
      heartbeat("ex-1", session, t);
      dispatch.tick(t);
    }
    assertEquals(1, dispatch.outstandingOf("ex-1"), "still within ack timeout + timeout_ms + grace");
    heartbeat("ex-1", session, 73_000);
    dispatch.tick(73_000);
    assertEquals(0, dispatch.outstandingOf("ex-1"));
    assertTrue(events.contains("room_given_back 1"));
  }

  /** Records observer calls as short strings. */
  record RecordingObserver(List<String> events) implements DispatchObserver {
    @Override
    public void executorEvent(String executorId, String event) {
      events.add(event + " " + executorId);
    }

    @Override
    public void refused(String kind, int count) {
      events.add("refused " + kind + " " + count);
    }

    @Override
    public void outcomes(OutcomeTally tally) {
      events.add("outcomes " + tally.successes() + "/" + (tally.failures() + tally.timeouts()));
    }

    @Override
    public void retriesScheduled(int count) {
      events.add("retries " + count);
    }

    @Override
    public void dispatchUnanswered(String executorId, int tasks) {
      events.add("dispatch_unanswered " + executorId);
    }

    @Override
    public void offlineSettled(String executorId, int tasks) {
      events.add("offline_settled " + executorId + " " + tasks);
    }

    @Override
    public void roomGivenBack(int tasks) {
      events.add("room_given_back " + tasks);
    }

    @Override
    public void notWatching(long gapMs) {
      events.add("not_watching " + gapMs);
    }
  }
}
