package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every message survives its own codec, and what breaks the protocol is refused with the field named. */
class MessagesTest {

  @Test
  void aRegistrationReadsBackAsWritten() {
    Registration r = new Registration("ex-1", List.of("echo", "noop"), Map.of("high", 2, "default", 4, "slow", 1), 10,
        "z1", "ax-java/1");
    Registration back = Registration.fromJson(r.toJson());
    assertEquals(r, back);
    assertEquals(7, back.threads());
  }

  @Test
  void aRegistrationIsValidated() {
    JsonObject ok = new JsonObject().put("executor_id", "ex-1").put("processors", new JsonArray().add("echo"));
    Registration defaults = Registration.fromJson(ok);
    assertEquals(Map.of("high", 8, "default", 16, "slow", 8), defaults.capacity());
    assertEquals(Registration.DEFAULT_BUFFER, defaults.buffer());
    assertNull(defaults.zone());

    assertThrows(ProtocolException.class, () -> Registration.fromJson(new JsonObject().put("executor_id", "ex-1")));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("executor_id", "ex/1")));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("capacity", new JsonObject().put("turbo", 3))));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("capacity", new JsonObject().put("high", 0))));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("capacity", "lots")));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("buffer", -1)));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("buffer", 1.5)));
    assertThrows(ProtocolException.class, () -> Registration.fromJson(ok.copy().put("processors", new JsonArray().add("bad name"))));
    assertThrows(ProtocolException.class, () -> Registration.fromJson("not json"));
    assertEquals("ax-java/1", Registration.fromJson(ok.copy().put("sdk", "ax-java/1")).sdk());
    assertNull(Registration.fromJson(ok.copy().put("zone", "z".repeat(65))).zone(), "an overlong zone is ignored");
  }

  @Test
  void aHeartbeatReadsBackAndRefusesNegativeCounts() {
    Heartbeat h = new Heartbeat("ex-1", "s-1", Map.of("high", 1, "default", 2, "slow", 0), 3, 4, 0.5, 10, 1, 2.5);
    assertEquals(h, Heartbeat.fromJson(h.toJson()));
    assertThrows(ProtocolException.class, () -> Heartbeat.fromJson(h.toJson().put("backlog", -1)));
    Heartbeat sparse = Heartbeat.fromJson(new JsonObject().put("session", "s").put("cpu_load", "high"));
    assertEquals(0, sparse.cpuLoad());
    assertEquals(0, sparse.freeThreads());
  }

  @Test
  void aDispatchCarriesIdsAsStringsAndReadsBackTaskByTask() {
    DispatchedTask t = new DispatchedTask("7421394872192303104", 3, "echo", "t", new JsonObject().put("a", 1), 8,
        PoolRule.HIGH, 1_000, 1_700_000_000_000L, 0, 1);
    JsonObject wire = new Dispatch(9, List.of(t)).toJson();
    assertEquals(9L, Dispatch.epochOf(wire));
    JsonObject first = Dispatch.rawTasks(wire).getJsonObject(0);
    assertEquals("7421394872192303104", first.getString("task_id"));
    assertEquals(t, DispatchedTask.fromJson(first));
    assertNull(Dispatch.epochOf(new JsonObject()));
  }

  @Test
  void aDispatchedTaskCarriesItsTraceContextOnlyWhenItHasOne() {
    String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    DispatchedTask traced = new DispatchedTask("5", 1, "echo", "t", null, 5, PoolRule.DEFAULT, 1_000, 0, 0, 1, tp,
        "vendor=x");
    assertEquals(traced, DispatchedTask.fromJson(traced.toJson()));
    assertEquals(tp, traced.toJson().getString("traceparent"));
    JsonObject plain = new DispatchedTask("5", 1, "echo", "t", null, 5, PoolRule.DEFAULT, 1_000, 0, 0, 1).toJson();
    assertFalse(plain.containsKey("traceparent"), "without tracing the message is what it always was");
    assertFalse(plain.containsKey("tracestate"));
    DispatchedTask garbled = DispatchedTask.fromJson(traced.toJson().put("traceparent", "00-nope"));
    assertNull(garbled.traceparent(), "an invalid traceparent is dropped, not refused");
    assertNull(garbled.tracestate());
    TaskOutcome o = new TaskOutcome("5", 1, 0, true, null, null, 2, tp);
    assertEquals(o, TaskOutcome.fromJson(o.toJson()));
    assertFalse(new TaskOutcome("5", 1, 0, true, null, null, 2).toJson().containsKey("traceparent"));
  }

  @Test
  void aMalformedDispatchedTaskIsRefusedButStillNamed() {
    JsonObject noProcessor = new JsonObject().put("task_id", 12);
    assertThrows(ProtocolException.class, () -> DispatchedTask.fromJson(noProcessor));
    assertEquals("12", DispatchedTask.idOf(noProcessor), "numbers are read as their exact text");
    assertNull(DispatchedTask.idOf("nope"));
    DispatchedTask defaults = DispatchedTask.fromJson(new JsonObject().put("task_id", "5").put("processor", "p"));
    assertEquals(1, defaults.attempt());
    assertEquals(1, defaults.shardTotal());
  }

  @Test
  void anAckNamesTheAcceptedAndRejectedIds() {
    Ack ack = new Ack(List.of("5", "6"), List.of("7"), null);
    assertEquals(ack, Ack.fromJson(ack.toJson()));
    assertEquals(Ack.STALE_EPOCH, Ack.fromJson(new Ack(List.of(), List.of("1"), Ack.STALE_EPOCH).toJson()).reason());
    assertThrows(ProtocolException.class, () -> Ack.fromJson("nope"));
    assertThrows(ProtocolException.class, () -> Ack.fromJson(new JsonObject().put("accepted", "5")));
  }

  @Test
  void aResultBatchKeepsTheGoodItemsAndNamesTheMalformedOnes() {
    JsonObject body = new JsonObject().put("session", "s-1").put("results", new JsonArray()
        .add(new TaskOutcome("7421394872192303104", 1, 0, true, new JsonObject().put("x", 1), null, 5).toJson())
        .add(new JsonObject().put("task_id", "12").put("attempt", 2).put("status", "FAILED").put("error", "boom"))
        .add(new JsonObject().put("task_id", "13").put("attempt", 0).put("status", "SUCCESS"))
        .add(new JsonObject().put("task_id", "14").put("attempt", 1).put("status", "MAYBE"))
        .add(new JsonObject().put("task_id", "15").put("attempt", 1).put("status", "FAILED"))
        .add("junk"));
    ResultBatch.Received r = ResultBatch.fromJson(body);
    assertEquals("s-1", r.session());
    assertEquals(3, r.results().size());
    assertEquals("7421394872192303104", r.results().get(0).taskId(), "ids beyond 2^53 survive as strings");
    assertTrue(r.results().get(0).success());
    assertEquals(new JsonObject().put("x", 1), r.results().get(0).result());
    assertFalse(r.results().get(1).success());
    assertEquals("boom", r.results().get(1).error());
    assertEquals("failed (no error given)", r.results().get(2).error());
    assertEquals(List.of("13", "14", "?"), r.malformed());
    assertThrows(ProtocolException.class, () -> ResultBatch.fromJson(new JsonObject()));
  }

  @Test
  void repliesReadBackAsWritten() {
    ResultReply reply = new ResultReply(List.of("1"), List.of("2", "3"));
    assertEquals(reply, ResultReply.fromJson(reply.toJson()));
    RegisterReply reg = new RegisterReply("ex-1", "s", ExecutorAddresses.inbox("ex-1"), 5_000, 2_000, 7);
    assertEquals(reg, RegisterReply.fromJson(reg.toJson(), "ex-1"));
    assertThrows(ProtocolException.class, () -> RegisterReply.fromJson(new JsonObject(), "ex-1"));
    assertEquals(new HeartbeatReply("LIVE", 7), HeartbeatReply.fromJson(new HeartbeatReply("LIVE", 7).toJson()));
    Drain drain = new Drain("ex-1", "s", true);
    assertEquals(drain, Drain.fromJson(drain.toJson()));
    assertFalse(Drain.fromJson(new Drain("ex-1", "s", false).toJson()).done());
  }
}
