package ax.bridge;

import ax.bridge.BridgeCommand.Authenticated;
import ax.bridge.BridgeCommand.CheckToken;
import ax.bridge.BridgeCommand.Close;
import ax.bridge.BridgeCommand.Error;
import ax.bridge.BridgeCommand.FailReply;
import ax.bridge.BridgeCommand.Pong;
import ax.bridge.BridgeCommand.Publish;
import ax.bridge.BridgeCommand.Reply;
import ax.bridge.BridgeCommand.Request;
import ax.bridge.BridgeCommand.Send;
import ax.bridge.BridgeCommand.Subscribe;
import ax.bridge.BridgeCommand.Unsubscribe;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BridgeSessionTest {
  private static final long AUTH_MS = 10_000;
  private static final long IDLE_MS = 30_000;
  private static final Set<String> NO_REPLIES = Set.of();

  private final BridgeSession session = new BridgeSession(AUTH_MS, IDLE_MS, 0);

  private static ClientFrame frame(ClientFrame.Type type, String address, String replyAddress,
                                   Map<String, String> headers) {
    return new ClientFrame(type, address, replyAddress, headers, Map.of("k", "v"), null, null);
  }

  private static ClientFrame register(String token) {
    return frame(ClientFrame.Type.SEND, "ax.exec.register", "r1", token == null ? Map.of() : Map.of("token", token));
  }

  private List<BridgeCommand> on(ClientFrame f, long now, Set<String> awaiting) {
    return session.onFrame(f, now, awaiting::contains);
  }

  private void authenticateAs(String executorId) {
    on(register("jwt"), 0, NO_REPLIES);
    session.onTokenChecked(executorId);
  }

  @Test
  void aPingIsAnsweredBeforeAuthentication() {
    assertEquals(List.of(new Pong()), on(ClientFrame.ping(), 0, NO_REPLIES));
    assertEquals(BridgeSession.Phase.OPEN, session.phase());
  }

  @Test
  void theFirstOtherFrameMustBeARegisterWithATokenOrTheConnectionIsClosed() {
    for (ClientFrame f : List.of(register(null), frame(ClientFrame.Type.SEND, "ax.exec.heartbeat", "r", Map.of("token", "t")),
        frame(ClientFrame.Type.REGISTER, "ax.exec.inbox.ex-1", null, Map.of("token", "t")),
        frame(ClientFrame.Type.PUBLISH, "ax.exec.register", null, Map.of("token", "t")))) {
      BridgeSession s = new BridgeSession(AUTH_MS, IDLE_MS, 0);
      assertEquals(List.of(new Close(BridgeSession.BLOCKED, "unauthenticated")), s.onFrame(f, 0, a -> false), f.toString());
      assertFalse(s.takesFrames());
    }
  }

  @Test
  void aRegisterWithATokenWaitsForTheCheckThenGoesOnStampedWithTheSubject() {
    List<BridgeCommand> first = on(frame(ClientFrame.Type.SEND, "ax.exec.register", "r1",
        Map.of("token", "jwt", "executor_id", "someone-else", "trace", "x")), 5, NO_REPLIES);

    assertEquals(List.of(new CheckToken("jwt")), first);
    assertFalse(session.takesFrames(), "nothing more is read while the token is checked");
    List<BridgeCommand> then = session.onTokenChecked("ex-1");
    assertEquals(List.of(new Authenticated("ex-1"), new Request("ax.exec.register", "r1",
        Map.of("executor_id", "ex-1", "trace", "x"), Map.of("k", "v"))), then);
    assertTrue(session.takesFrames());
    assertEquals("ex-1", session.executorId());
  }

  @Test
  void aRefusedTokenClosesTheConnection() {
    on(register("forged"), 0, NO_REPLIES);

    assertEquals(List.of(new Close(BridgeSession.BLOCKED, "bad_token")), session.onTokenChecked(null));
    assertEquals(BridgeSession.Phase.CLOSED, session.phase());
    assertEquals(List.of(), session.onTokenChecked("late"), "an answer after the close changes nothing");
  }

  @Test
  void handingAFrameToASessionThatIsCheckingItsTokenIsABug() {
    on(register("jwt"), 0, NO_REPLIES);

    assertThrows(IllegalStateException.class, () -> on(ClientFrame.ping(), 0, NO_REPLIES));
  }

  @Test
  void anAuthenticatedExecutorSendsOnlyToTheProtocolAddressesAlwaysStamped() {
    authenticateAs("ex-1");

    assertEquals(List.of(new Request("ax.exec.heartbeat", "r2", Map.of("executor_id", "ex-1"), Map.of("k", "v"))),
        on(frame(ClientFrame.Type.SEND, "ax.exec.heartbeat", "r2", Map.of("executor_id", "ex-2", "token", "t")), 1,
            NO_REPLIES));
    assertEquals(List.of(new Send("ax.exec.result", Map.of("executor_id", "ex-1"), Map.of("k", "v"))),
        on(frame(ClientFrame.Type.SEND, "ax.exec.result", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Publish("ax.exec.drain", Map.of("executor_id", "ex-1"), Map.of("k", "v"))),
        on(frame(ClientFrame.Type.PUBLISH, "ax.exec.drain", null, Map.of()), 1, NO_REPLIES));
    for (String forbidden : List.of("ax.exec.inbox.ex-2", "ax.wheel.schedule", "__vertx.reply.1", "ax.exec.register.x")) {
      assertEquals(List.of(new Error(BridgeSession.ACCESS_DENIED, BridgeSession.ACCESS_DENIED)),
          on(frame(ClientFrame.Type.SEND, forbidden, "r", Map.of()), 1, NO_REPLIES), forbidden);
      assertEquals(List.of(new Error(BridgeSession.ACCESS_DENIED, BridgeSession.ACCESS_DENIED)),
          on(frame(ClientFrame.Type.PUBLISH, forbidden, null, Map.of()), 1, NO_REPLIES), forbidden);
    }
  }

  @Test
  void aSendToARequestTheServerIsWaitingOnIsTheAnswerOrItsFailure() {
    authenticateAs("ex-1");
    Set<String> awaiting = Set.of("__vertx.reply.4");

    assertEquals(List.of(new Reply("__vertx.reply.4", Map.of("executor_id", "ex-1"), Map.of("k", "v"))),
        on(frame(ClientFrame.Type.SEND, "__vertx.reply.4", null, Map.of()), 1, awaiting));
    assertEquals(List.of(new FailReply("__vertx.reply.4", 418, "no")),
        on(new ClientFrame(ClientFrame.Type.SEND, "__vertx.reply.4", null, Map.of(), null, 418, "no"), 1, awaiting));
    assertEquals(List.of(new Error(BridgeSession.ACCESS_DENIED, BridgeSession.ACCESS_DENIED)),
        on(frame(ClientFrame.Type.SEND, "__vertx.reply.4", "r", Map.of()), 1, awaiting),
        "a request to a reply address is not an answer");
  }

  @Test
  void anExecutorSubscribesOnlyToItsOwnInboxAndOnlyOnce() {
    authenticateAs("ex-1");

    assertEquals(List.of(new Error(BridgeSession.BLOCKED, "foreign_inbox")),
        on(frame(ClientFrame.Type.REGISTER, "ax.exec.inbox.ex-2", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Subscribe("ax.exec.inbox.ex-1")),
        on(frame(ClientFrame.Type.REGISTER, "ax.exec.inbox.ex-1", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Error(BridgeSession.BLOCKED, "duplicate_subscribe")),
        on(frame(ClientFrame.Type.REGISTER, "ax.exec.inbox.ex-1", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Unsubscribe("ax.exec.inbox.ex-1")),
        on(frame(ClientFrame.Type.UNREGISTER, "ax.exec.inbox.ex-1", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Error(BridgeSession.UNKNOWN_ADDRESS, BridgeSession.UNKNOWN_ADDRESS)),
        on(frame(ClientFrame.Type.UNREGISTER, "ax.exec.inbox.ex-1", null, Map.of()), 1, NO_REPLIES));
    assertEquals(List.of(new Subscribe("ax.exec.inbox.ex-1")),
        on(frame(ClientFrame.Type.REGISTER, "ax.exec.inbox.ex-1", null, Map.of()), 1, NO_REPLIES),
        "after an unsubscribe it may subscribe again");
  }

  @Test
  void aMalformedFrameIsAnsweredAndTheConnectionStays() {
    assertEquals(List.of(new Error("unknown_type", "unknown_type")), session.onMalformedFrame("unknown_type", 0));
    assertTrue(session.takesFrames());
  }

  @Test
  void aConnectionThatDoesNotAuthenticateInTimeIsClosedEvenIfItPings() {
    for (long t = 1_000; t < AUTH_MS; t += 1_000) {
      on(ClientFrame.ping(), t, NO_REPLIES);
      assertEquals(List.of(), session.onTick(t, false));
    }
    assertEquals(List.of(new Close(BridgeSession.AUTH_TIMEOUT, BridgeSession.AUTH_TIMEOUT)),
        session.onTick(AUTH_MS, false));
  }

  @Test
  void anAuthenticatedConnectionWithoutAFrameForTheIdleTimeoutIsClosed() {
    authenticateAs("ex-1");
    on(ClientFrame.ping(), 20_000, NO_REPLIES);

    assertEquals(List.of(), session.onTick(20_000 + IDLE_MS - 1, false));
    assertEquals(List.of(new Close(BridgeSession.IDLE_TIMEOUT, BridgeSession.IDLE_TIMEOUT)),
        session.onTick(20_000 + IDLE_MS, false));
  }

  @Test
  void heartbeatsEveryFiveSecondsKeepAConnectionOpenForever() {
    authenticateAs("ex-1");
    for (long t = 5_000; t < 600_000; t += 5_000) {
      on(frame(ClientFrame.Type.SEND, "ax.exec.heartbeat", "h", Map.of()), t, NO_REPLIES);
      assertEquals(List.of(), session.onTick(t + 4_999, false));
    }
  }

  @Test
  void theIdleClockStopsWhileTheNodeHoldsTheConnectionBack() {
    authenticateAs("ex-1");

    assertEquals(List.of(), session.onTick(IDLE_MS * 3, true), "throttled: the executor could not send");
    session.onResumed(IDLE_MS * 3);
    assertEquals(List.of(), session.onTick(IDLE_MS * 4 - 1, false));
    assertEquals(1, session.onTick(IDLE_MS * 4, false).size());
  }

  @Test
  void aMalformedFrameStillCountsAsAFrameForTheIdleClockButNotForAuthentication() {
    session.onMalformedFrame("invalid_json", 9_000);
    assertEquals(List.of(new Close(BridgeSession.AUTH_TIMEOUT, BridgeSession.AUTH_TIMEOUT)),
        session.onTick(AUTH_MS, false));
  }

  @Test
  void overTheBudgetOrOverTheFrameLimitTheConnectionIsClosed() {
    assertEquals(List.of(new Close(BridgeSession.BUSY, BridgeSession.BUSY)), session.onOverBudget());
    assertEquals(List.of(), session.onTick(AUTH_MS * 2, false), "a closed session has no deadlines");
    BridgeSession other = new BridgeSession(AUTH_MS, IDLE_MS, 0);
    assertEquals(List.of(new Close(BridgeSession.FRAME_TOO_LARGE, BridgeSession.FRAME_TOO_LARGE)),
        other.onFrameTooLarge());
  }
}
