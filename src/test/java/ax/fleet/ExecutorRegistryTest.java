package ax.fleet;

import ax.fleet.ExecutorRegistry.Load;
import ax.fleet.ExecutorRegistry.Registration;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExecutorRegistryTest {
  private static final long HB = 5_000;
  private static final Load IDLE = new Load(8, 0, 0.1, 0, 0, 0);

  private static Registration reg(String id) {
    return new Registration(id, Set.of("echo"), Map.of("default", 8), 4, "z1");
  }

  @Test
  void aSessionTakesWorkOnlyAfterItsFirstHeartbeat() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    assertFalse(s.takesWork());
    assertFalse(r.candidates("echo", id -> 0).get(0).available());
    r.heartbeat("a", s.session(), IDLE, 100);
    assertTrue(s.takesWork());
    assertEquals(12, r.candidates("echo", id -> 0).get(0).freeThreads(), "8 threads + 4 buffer");
  }

  @Test
  void threeMissedHeartbeatsMakeItSuspectAndFourOffline() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.heartbeat("a", s.session(), IDLE, 0);
    assertTrue(r.sweep(2 * HB + 999).suspect().isEmpty());
    assertEquals(1, r.sweep(3 * HB).suspect().size());
    assertFalse(s.takesWork(), "SUSPECT gets no new work");
    assertTrue(r.sweep(3 * HB + 10).suspect().isEmpty(), "reported once");
    ExecutorRegistry.Sweep off = r.sweep(4 * HB);
    assertEquals(1, off.offline().size());
    assertTrue(r.find("a").isEmpty());
  }

  @Test
  void heartbeatsAreCountedAsMissedOnlyFromWhenThisNodeWatchesAgain() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.heartbeat("a", s.session(), IDLE, 0);
    r.notWatchedUntil(10 * HB); // this node was stopped: the heartbeats sent meanwhile are still unread
    assertTrue(r.sweep(10 * HB).offline().isEmpty());
    assertTrue(r.sweep(12 * HB + 999).suspect().isEmpty());
    assertEquals(1, r.sweep(13 * HB).suspect().size());
    assertEquals(1, r.sweep(14 * HB).offline().size(), "a dead executor is still found, 4 intervals later");
  }

  @Test
  void aHeartbeatBringsASuspectBack() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.sweep(3 * HB);
    r.heartbeat("a", s.session(), IDLE, 3 * HB + 1);
    assertEquals(ExecutorSession.State.LIVE, s.state());
  }

  @Test
  void anOfflineExecutorIsRefusedUntilItsTasksAreSettled() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.sweep(4 * HB);
    assertTrue(r.heartbeat("a", s.session(), IDLE, 4 * HB + 1).isEmpty(), "late heartbeat refused");
    assertFalse(r.register(reg("a"), 4 * HB + 2).ok(), "quarantined while its tasks are recovered");
    r.released("a");
    ExecutorSession again = r.register(reg("a"), 4 * HB + 3).value();
    assertNotEquals(s.session(), again.session());
  }

  @Test
  void aReconnectReplacesTheSession() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    ExecutorSession t = r.register(reg("a"), 10).value();
    assertNotEquals(s.session(), t.session());
    assertTrue(r.heartbeat("a", s.session(), IDLE, 20).isEmpty(), "the old session is gone");
  }

  @Test
  void outstandingTasksFillTheBufferAndThenStopDispatch() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.heartbeat("a", s.session(), IDLE, 0);
    assertEquals(2, s.freeSlots(10));
    assertEquals(2, s.backlog(10), "2 tasks wait in the buffer beyond 8 workers");
    assertFalse(r.candidates("echo", id -> 12).get(0).available(), "full: nothing more is sent");
    assertTrue(r.candidates("echo", id -> 9).get(0).available());
    assertEquals(0, s.freeSlots(13), "never negative, even past the capacity");
  }

  @Test
  void drainingStopsWorkAndLeavingRemovesTheSession() {
    ExecutorRegistry r = new ExecutorRegistry(HB);
    ExecutorSession s = r.register(reg("a"), 0).value();
    r.heartbeat("a", s.session(), IDLE, 0);
    assertTrue(r.drain("a", s.session()));
    assertFalse(s.takesWork());
    assertTrue(r.leave("a", s.session()));
    assertTrue(r.sweep(10 * HB).offline().isEmpty(), "a session that left is not declared OFFLINE");
  }
}
