#!/usr/bin/env python3
"""An ax executor in plain Python (standard library only, Python 3.9+).

It speaks the frames of the executor protocol (docs/executor-protocol.md) over the Vert.x TCP event-bus bridge and nothing
else, so it doubles as a readable reference for writing an executor in any language.

Threads, and who owns what:
  * the main thread owns the session: connect, register, heartbeat, result batches, drain, reconnect;
  * one reader thread per connection decodes frames, completes pending requests and answers dispatches
    at once (the ack must not wait behind anything else);
  * a small pool of worker threads runs the handlers.
Shared state (admission counters, the dedupe window, pending results, counters) lives in `Executor`
behind one lock; every critical section is short and never does I/O except the socket write, which
has its own lock.

Run `python3 ax_executor.py --help` for the options; README.md beside this file explains more.
"""

import argparse
import base64
import collections
import concurrent.futures
import itertools
import json
import logging
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

LOG = logging.getLogger("ax_executor")

# ---- addresses (mirror ax.bus.Addresses) ----
REGISTER = "ax.exec.register"
HEARTBEAT = "ax.exec.heartbeat"
RESULT = "ax.exec.result"
DRAIN = "ax.exec.drain"
INBOX_PREFIX = "ax.exec.inbox."

SDK = "ax-python/1"
MAX_FRAME_BYTES = 1024 * 1024          # the server refuses larger frames; never send one
MAX_INBOUND_FRAME_BYTES = 16 * MAX_FRAME_BYTES  # a server frame this big means a broken stream
MAX_RESULT_BYTES = 64 * 1024           # a result larger than this is reported as FAILED
MAX_RESULTS_PER_BATCH = 200
DEDUPE_WINDOW_SECONDS = 300.0
REQUEST_TIMEOUT_SECONDS = 10.0
STALE_EPOCH = "stale_epoch"
DRAINING = "draining"
GONE_STATUS = 410                      # heartbeat failure code: the scheduler no longer knows the session

TaskKey = Tuple[str, int, int]         # (task_id, attempt, shard_index)


# =====================================================================================================
# Frames
# =====================================================================================================

class FrameTooLarge(Exception):
    pass


def encode_frame(message: Dict[str, Any]) -> bytes:
    """A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON."""
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(data) > MAX_FRAME_BYTES:
        raise FrameTooLarge("frame of %d bytes exceeds the %d byte limit" % (len(data), MAX_FRAME_BYTES))
    return struct.pack(">I", len(data)) + data


class FrameDecoder:
    """Turns a byte stream into frames. TCP may split a frame over many reads or pack several frames
    into one read, so bytes are buffered until a whole frame is there."""

    def __init__(self, max_frame_bytes: int = MAX_INBOUND_FRAME_BYTES):
        self._buffer = bytearray()
        self._max = max_frame_bytes

    def feed(self, data: bytes) -> List[Dict[str, Any]]:
        """Adds bytes; returns every frame now complete, in order. A frame that is not a JSON object is
        skipped (logged), mirroring the bridge, so one bad frame does not wedge the stream."""
        self._buffer.extend(data)
        frames = []
        while len(self._buffer) >= 4:
            (length,) = struct.unpack(">I", self._buffer[:4])
            if length > self._max:
                raise FrameTooLarge("server announced a %d byte frame" % length)
            if len(self._buffer) < 4 + length:
                break
            payload = bytes(self._buffer[4:4 + length])
            del self._buffer[:4 + length]
            try:
                frame = json.loads(payload.decode("utf-8"))
            except ValueError:
                LOG.warning("dropping a frame that is not valid JSON (%d bytes)", length)
                continue
            if isinstance(frame, dict):
                frames.append(frame)
            else:
                LOG.warning("dropping a frame that is not a JSON object")
        return frames


# =====================================================================================================
# Pure bookkeeping: dedupe window and admission (unit-tested without sockets)
# =====================================================================================================

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


def trace_context(task: Dict[str, Any]) -> Optional[Dict[str, str]]:
    """The W3C trace context a dispatched task carries (scheduler tracing on), or None.

    Returns {"traceparent", "trace_id", "parent_id"} (+ "tracestate" when sent). An invalid value is
    ignored, never an error (https://www.w3.org/TR/trace-context/). A handler that makes calls of its own
    passes task["traceparent"] on as their `traceparent` header; with an OpenTelemetry SDK it would be the
    parent of the handler's span. The result sent back names it too, so the scheduler's result span joins
    the same trace.
    """
    value = task.get("traceparent")
    if not isinstance(value, str):
        return None
    m = _TRACEPARENT.match(value)
    if (m is None or m.group(1) == "ff" or set(m.group(2)) == {"0"} or set(m.group(3)) == {"0"}
            or (m.group(1) == "00" and m.group(5) is not None)):
        return None
    ctx = {"traceparent": value, "trace_id": m.group(2), "parent_id": m.group(3)}
    state = task.get("tracestate")
    if isinstance(state, str) and 0 < len(state) <= 512:
        ctx["tracestate"] = state
    return ctx


def task_key(task: Dict[str, Any]) -> TaskKey:
    return (str(task["task_id"]), int(task.get("attempt", 1)), int(task.get("shard_index", 0)))


class DedupeWindow:
    """Remembers which (task_id, attempt, shard_index) ran in the last `window_seconds`, and its result.

    A key is entered when its execution starts (result None while running) so a duplicate dispatch that
    arrives mid-run is not run twice either; it expires `window_seconds` after it finished. Running keys
    never expire. Not thread-safe: the caller holds its lock. The clock is injected for tests."""

    def __init__(self, window_seconds: float = DEDUPE_WINDOW_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self._window = window_seconds
        self._clock = clock
        self._entries = collections.OrderedDict()  # key -> [finished_at or None, result or None]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: TaskKey) -> bool:
        self._expire()
        return key in self._entries

    def start(self, key: TaskKey) -> None:
        self._entries[key] = [None, None]
        self._entries.move_to_end(key)

    def finish(self, key: TaskKey, result: Dict[str, Any]) -> None:
        self._entries[key] = [self._clock(), result]
        self._entries.move_to_end(key)  # keeps the dict ordered by finish time, so expiry stops early
        self._expire()

    def recorded_result(self, key: TaskKey) -> Optional[Dict[str, Any]]:
        """The result of a finished execution, or None if it is unknown or still running."""
        self._expire()
        entry = self._entries.get(key)
        return entry[1] if entry else None

    def _expire(self) -> None:
        horizon = self._clock() - self._window
        for key in list(self._entries):
            finished_at = self._entries[key][0]
            if finished_at is None:
                continue          # still running; entries after it may be old, keep scanning
            if finished_at > horizon:
                break
            del self._entries[key]


class Decision:
    """What to answer to one dispatch and what to do with its tasks."""

    def __init__(self):
        self.accepted: List[str] = []
        self.rejected: List[str] = []
        self.reason: Optional[str] = None
        self.to_run: List[Dict[str, Any]] = []       # new executions
        self.duplicates: List[TaskKey] = []          # accepted but already run (or running)

    def reply(self) -> Dict[str, Any]:
        body = {"accepted": self.accepted, "rejected": self.rejected}
        if self.reason:
            body["reason"] = self.reason
        return body


class Admission:
    """Bounded local buffer: accepts up to `capacity` (= threads + buffer) executions in flight and
    rejects the rest, so the scheduler re-offers them elsewhere instead of us queueing without bound.
    Also fences deposed leaders: a dispatch with an epoch below the highest seen is rejected whole.
    Not thread-safe: the caller holds its lock."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.in_flight = 0
        self.highest_epoch: Optional[int] = None
        self.draining = False

    def observe_epoch(self, epoch: Any) -> None:
        if isinstance(epoch, int) and (self.highest_epoch is None or epoch > self.highest_epoch):
            self.highest_epoch = epoch

    def decide(self, dispatch: Dict[str, Any], dedupe: DedupeWindow) -> Decision:
        tasks = dispatch.get("tasks") or []
        decision = Decision()
        epoch = dispatch.get("epoch")
        if isinstance(epoch, int) and self.highest_epoch is not None and epoch < self.highest_epoch:
            decision.rejected = [str(t.get("task_id")) for t in tasks]
            decision.reason = STALE_EPOCH
            return decision
        self.observe_epoch(epoch)
        for task in tasks:
            task_id = str(task.get("task_id"))
            key = task_key(task)
            if key in dedupe:
                # Accepting costs nothing: we run nothing and re-send what we recorded.
                decision.accepted.append(task_id)
                decision.duplicates.append(key)
            elif self.draining:
                decision.rejected.append(task_id)
                decision.reason = DRAINING
            elif self.in_flight < self.capacity:
                self.in_flight += 1
                dedupe.start(key)
                decision.accepted.append(task_id)
                decision.to_run.append(task)
            else:
                decision.rejected.append(task_id)
        return decision

    def finished(self) -> None:
        self.in_flight -= 1


# =====================================================================================================
# Processors
# =====================================================================================================

class TaskFailed(Exception):
    pass


def builtin_processors(executor_id: str) -> Dict[str, Callable[[Dict[str, Any]], Any]]:
    """Handlers take the dispatched task (a dict) and return any JSON value; raising reports FAILED."""

    def noop(task):
        return None

    def echo(task):
        return {"payload": task.get("payload"), "executor_id": executor_id,
                "shard_index": task.get("shard_index", 0), "lang": "python"}

    def fail(task):
        raise TaskFailed("the fail processor always fails")

    return {"noop": noop, "echo": echo, "fail": fail}


# =====================================================================================================
# Connection: one TCP socket, a reader thread and the requests waiting for answers
# =====================================================================================================

class Reply:
    """The outcome of one request: ok + body, or a failure (code, message)."""

    def __init__(self, ok: bool, body: Any = None, code: Optional[int] = None, message: str = ""):
        self.ok, self.body, self.code, self.message = ok, body, code, message

    def __repr__(self):
        return "Reply(ok)" if self.ok else "Reply(failed %s: %s)" % (self.code, self.message)


class Connection:
    """Frames over a socket. `request` registers a callback under a fresh reply address; the reader
    thread calls it with a `Reply` (or a failure when the socket closes or `expire` finds it late).
    Incoming requests to our inbox go to `on_message`."""

    _ids = itertools.count(1)

    def __init__(self, host: str, port: int, on_message: Callable[["Connection", Dict[str, Any]], None],
                 connect_timeout: float = 5.0):
        self.label = "%s:%d" % (host, port)
        self._sock = socket.create_connection((host, port), timeout=connect_timeout)
        self._sock.settimeout(None)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._on_message = on_message
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: Dict[str, Tuple[float, Callable[[Reply], None]]] = {}
        self.closed = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="ax-reader-" + self.label, daemon=True)
        self._reader.start()

    def send(self, frame: Dict[str, Any]) -> None:
        data = encode_frame(frame)
        with self._write_lock:
            self._sock.sendall(data)

    def request(self, address: str, body: Dict[str, Any], callback: Callable[[Reply], None],
                headers: Optional[Dict[str, str]] = None, timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        reply_address = "ax.py.%d.%d" % (os.getpid(), next(self._ids))
        frame = {"type": "send", "address": address, "replyAddress": reply_address, "body": body}
        if headers:
            frame["headers"] = headers
        with self._lock:
            self._pending[reply_address] = (time.monotonic() + timeout, callback)
        try:
            self.send(frame)
        except FrameTooLarge as e:
            self._complete(reply_address, Reply(False, code=-1, message=str(e)))
        except OSError as e:
            self._complete(reply_address, Reply(False, code=-1, message="send failed: %s" % e))
            self.close()

    def reply(self, reply_address: str, body: Dict[str, Any]) -> None:
        self.send({"type": "send", "address": reply_address, "body": body})

    def expire(self, now: float) -> None:
        """Fails requests whose answer is overdue; a late answer is then ignored."""
        with self._lock:
            late = [a for a, (deadline, _) in self._pending.items() if deadline <= now]
        for address in late:
            self._complete(address, Reply(False, code=-1, message="timeout"))

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        with self._lock:
            pending, self._pending = self._pending, {}
        for _, callback in pending.values():
            _call(callback, Reply(False, code=-1, message="disconnected"))

    def _complete(self, reply_address: str, reply: Reply) -> bool:
        with self._lock:
            entry = self._pending.pop(reply_address, None)
        if entry is None:
            return False
        _call(entry[1], reply)
        return True

    def _read_loop(self) -> None:
        decoder = FrameDecoder()
        try:
            while not self.closed.is_set():
                data = self._sock.recv(65536)
                if not data:
                    break
                for frame in decoder.feed(data):
                    self._handle(frame)
        except (OSError, FrameTooLarge) as e:
            if not self.closed.is_set():
                LOG.warning("connection to %s failed: %s", self.label, e)
        finally:
            self.close()

    def _handle(self, frame: Dict[str, Any]) -> None:
        kind = frame.get("type")
        address = frame.get("address")
        if kind == "message":
            if address is not None and self._complete(address, Reply(True, body=frame.get("body"))):
                return
            self._on_message(self, frame)
        elif kind == "err":
            if address is not None and self._complete(address, Reply(
                    False, code=frame.get("failureCode"), message=frame.get("message", ""))):
                return
            # Errors without an address answer no request: access_denied, blocked by bridgeEvent
            # handler (bad token; the server then closes the socket), invalid_json, ...
            LOG.warning("server error from %s: %s", self.label, frame.get("message"))
        elif kind != "pong":
            LOG.debug("ignoring frame of type %s", kind)


def _call(callback: Callable[[Reply], None], reply: Reply) -> None:
    try:
        callback(reply)
    except Exception:  # a broken callback must not kill the reader thread
        LOG.exception("reply callback failed")


class Waiter:
    """Blocks the main thread on one request's answer (used only for register)."""

    def __init__(self):
        self._event = threading.Event()
        self.reply: Optional[Reply] = None

    def __call__(self, reply: Reply) -> None:
        self.reply = reply
        self._event.set()

    def wait(self, timeout: float) -> Reply:
        if not self._event.wait(timeout):
            return Reply(False, code=-1, message="timeout")
        return self.reply


# =====================================================================================================
# The executor
# =====================================================================================================

def executor_id_from_token(token: str) -> str:
    """The JWT's `sub`, read without verifying the signature (the server verifies; we only need the id)."""
    try:
        payload = token.split(".")[1]
        payload += "=" * (-len(payload) % 4)
        sub = json.loads(base64.urlsafe_b64decode(payload.encode("ascii")))["sub"]
    except (IndexError, ValueError, KeyError, TypeError) as e:
        raise ValueError("cannot read the executor id (sub) from the token: %s" % e)
    if not isinstance(sub, str) or not sub:
        raise ValueError("the token's sub is empty")
    return sub


class Executor:
    """One executor process: sessions over successive connections, the bounded buffer, the workers,
    result batches and the drain. `run()` returns the exit code."""

    def __init__(self, servers: List[Tuple[str, int]], token: str, executor_id: str,
                 processors: Dict[str, Callable[[Dict[str, Any]], Any]], threads: int = 4, buffer: int = 64,
                 zone: Optional[str] = None, record_path: Optional[str] = None,
                 drain_timeout: float = 60.0):
        self.servers = servers
        self.token = token
        self.executor_id = executor_id
        self.processors = processors
        self.threads = threads
        self.buffer = buffer
        self.zone = zone
        self.drain_timeout = drain_timeout
        self._record = open(record_path, "a", encoding="utf-8") if record_path else None
        self._record_lock = threading.Lock()

        self._lock = threading.Lock()
        self._admission = Admission(threads + buffer)
        self._dedupe = DedupeWindow()
        self._pending_results: "collections.OrderedDict[TaskKey, Dict[str, Any]]" = collections.OrderedDict()
        self._running = 0
        self._executed = 0
        self._failed = 0
        self._total_duration_ms = 0.0
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ax-worker")

        # session state; touched by the main thread and by reply callbacks on the reader thread
        self._session: Optional[str] = None
        self._heartbeat_seconds = 5.0
        self._need_register = False
        self._heartbeat_in_flight = False
        self._results_in_flight = False
        self._results_retry_at = 0.0
        self._drain_requested = False
        self._drain_sent_for: Optional[str] = None   # session the drain request was answered for
        self._drain_request_in_flight = False
        self._drain_deadline: Optional[float] = None
        self._done_in_flight = False
        self._gone = False
        self._wake = threading.Event()

    # ---- entry point ------------------------------------------------------------------------------

    def request_drain(self) -> None:
        """Safe to call from a signal handler: it only sets a flag that the main loop polls."""
        self._drain_requested = True

    def run(self) -> int:
        backoff = 0.5
        for index in itertools.count():
            if self._drain_requested and self._holds_nothing():
                self._shutdown()
                return 0   # drained while disconnected: nothing to finish or report
            if self._drain_expired():
                return self._drain_timed_out()
            host, port = self.servers[index % len(self.servers)]
            try:
                conn = Connection(host, port, self._on_message)
            except OSError as e:
                LOG.warning("cannot connect to %s:%d: %s", host, port, e)
            else:
                registered = self._serve(conn)
                conn.close()
                if self._gone:
                    self._shutdown()
                    return 0
                if registered:
                    backoff = 0.5
            if self._drain_expired():
                return self._drain_timed_out()
            self._sleep(backoff * (0.5 + random.random()))
            backoff = min(backoff * 2, 10.0)
        return 1  # unreachable

    # ---- one connection ---------------------------------------------------------------------------

    def _serve(self, conn: Connection) -> bool:
        """Registers on `conn` and runs the session loop until the socket closes or the drain is done.
        Returns whether registration succeeded."""
        with self._lock:
            self._session = None
            self._heartbeat_in_flight = self._results_in_flight = False
            self._drain_request_in_flight = self._done_in_flight = False
        if not self._register(conn, first=True):
            return False
        # Subscribe once per connection: the bridge keeps one consumer per register frame and only
        # unregisters the last one on close, so a second subscribe would leak a consumer.
        try:
            conn.send({"type": "register", "address": INBOX_PREFIX + self.executor_id})
        except OSError as e:  # the node went away just after answering: connect again, as on any drop
            LOG.warning("connection to %s lost while subscribing: %s", conn.label, e)
            conn.close()
            return True
        next_heartbeat = time.monotonic()
        while not conn.closed.is_set() and not self._gone:
            now = time.monotonic()
            if self._need_register:
                if not self._register(conn, first=False):
                    break
                next_heartbeat = now
            if now >= next_heartbeat:
                self._send_heartbeat(conn)
                next_heartbeat = now + self._heartbeat_seconds
                self._results_retry_at = min(self._results_retry_at, now)  # resend on each heartbeat
            self._flush_results(conn, now)
            self._advance_drain(conn, now)
            if self._drain_expired():
                break
            conn.expire(now)
            self._wake.wait(0.05)
            self._wake.clear()
        return True

    def _register(self, conn: Connection, first: bool) -> bool:
        body = {"executor_id": self.executor_id, "processors": sorted(self.processors),
                "capacity": {"default": self.threads}, "buffer": self.buffer, "sdk": SDK}
        if self.zone:
            body["zone"] = self.zone
        waiter = Waiter()
        conn.request(REGISTER, body, waiter, headers={"token": self.token})
        reply = waiter.wait(REQUEST_TIMEOUT_SECONDS + 1)
        if not reply.ok or not isinstance(reply.body, dict) or not reply.body.get("session"):
            LOG.warning("register with %s failed: %s", conn.label, reply)
            conn.close()
            return False
        answer = reply.body
        with self._lock:
            self._session = answer["session"]
            self._need_register = False
            self._drain_sent_for = None
            self._heartbeat_seconds = max(0.1, answer.get("heartbeat_ms", 5000) / 1000.0)
            self._admission.observe_epoch(answer.get("epoch"))
        print("executor %s registered with %s session %s" % (self.executor_id, conn.label, self._session),
              flush=True)
        if answer.get("inbox") not in (None, INBOX_PREFIX + self.executor_id):
            LOG.warning("server named inbox %s; subscribing to %s%s", answer.get("inbox"), INBOX_PREFIX,
                        self.executor_id)
        return True

    # ---- heartbeat --------------------------------------------------------------------------------

    def _send_heartbeat(self, conn: Connection) -> None:
        with self._lock:
            if self._heartbeat_in_flight or self._session is None:
                return
            self._heartbeat_in_flight = True
            free = self.threads - self._running
            body = {"executor_id": self.executor_id, "session": self._session,
                    "free": {"default": free}, "free_threads": free,
                    "backlog": self._admission.in_flight - self._running, "cpu_load": _cpu_load(),
                    "executed": self._executed, "failed": self._failed,
                    "mean_duration_ms": round(self._total_duration_ms / self._executed, 3) if self._executed else 0.0}

        def on_reply(reply: Reply) -> None:
            with self._lock:
                self._heartbeat_in_flight = False
                if reply.ok and isinstance(reply.body, dict):
                    self._admission.observe_epoch(reply.body.get("epoch"))
                elif reply.code == GONE_STATUS:
                    LOG.warning("session %s is unknown to the scheduler (410); registering again", self._session)
                    self._need_register = True
                else:
                    LOG.warning("heartbeat failed: %s", reply)
            self._wake.set()

        conn.request(HEARTBEAT, body, on_reply)

    # ---- dispatch (reader thread) -------------------------------------------------------------------

    def _on_message(self, conn: Connection, frame: Dict[str, Any]) -> None:
        if not str(frame.get("address", "")).startswith(INBOX_PREFIX):
            LOG.debug("ignoring message to %s", frame.get("address"))
            return
        body = frame.get("body") if isinstance(frame.get("body"), dict) else {}
        with self._lock:
            self._admission.draining = self._drain_requested
            decision = self._admission.decide(body, self._dedupe)
            for key in decision.duplicates:
                recorded = self._dedupe.recorded_result(key)
                if recorded is not None:  # still running → its result will be sent when it finishes
                    # A fresh copy: if a batch holding this result is in flight, its answer drops only
                    # the object it sent (identity check), so this re-send still goes out.
                    self._pending_results[key] = dict(recorded)
                    self._results_retry_at = 0.0
        reply_address = frame.get("replyAddress")
        if reply_address:
            try:
                conn.reply(reply_address, decision.reply())
            except OSError as e:
                LOG.warning("could not ack dispatch: %s", e)  # the scheduler re-offers; our results are refused
        if decision.reason == STALE_EPOCH:
            LOG.warning("rejected a dispatch from epoch %s (highest seen %s)", body.get("epoch"),
                        self._admission.highest_epoch)
        for task in decision.to_run:
            self._pool.submit(self._execute, task)
        if decision.duplicates:
            self._wake.set()

    # ---- execution (worker threads) -----------------------------------------------------------------

    def _execute(self, task: Dict[str, Any]) -> None:
        key = task_key(task)
        with self._lock:
            self._running += 1
        self._write_record(key)
        started = time.monotonic()
        status, result, error = "SUCCESS", None, None
        trace = trace_context(task)
        if trace is not None:
            LOG.info("task %s attempt %s runs in trace %s (parent span %s)", key[0], key[1], trace["trace_id"],
                     trace["parent_id"])
        handler = self.processors.get(task.get("processor"))
        try:
            if handler is None:
                raise TaskFailed("unknown processor %r" % task.get("processor"))
            result = handler(task)
            if len(json.dumps(result).encode("utf-8")) > MAX_RESULT_BYTES:
                raise TaskFailed("result_too_large: over %d bytes" % MAX_RESULT_BYTES)
        except Exception as e:  # any handler failure becomes a FAILED outcome, never a lost task
            status, result, error = "FAILED", None, "%s: %s" % (type(e).__name__, e)
            LOG.info("task %s attempt %s shard %s failed: %s", key[0], key[1], key[2], error)
        duration_ms = int((time.monotonic() - started) * 1000)
        outcome = {"task_id": key[0], "attempt": key[1], "shard_index": key[2], "status": status,
                   "result": result, "error": error, "duration_ms": duration_ms}
        if trace is not None:
            outcome["traceparent"] = trace["traceparent"]
        with self._lock:
            self._running -= 1
            self._admission.finished()
            self._executed += 1
            if status == "FAILED":
                self._failed += 1
            self._total_duration_ms += duration_ms
            self._dedupe.finish(key, outcome)
            self._pending_results[key] = outcome
            self._results_retry_at = 0.0
        self._wake.set()

    def _write_record(self, key: TaskKey) -> None:
        if self._record is None:
            return
        with self._record_lock:
            self._record.write("%s %d %d %s\n" % (key[0], key[1], key[2], self.executor_id))
            self._record.flush()

    # ---- results ------------------------------------------------------------------------------------

    def _flush_results(self, conn: Connection, now: float) -> None:
        with self._lock:
            if (self._results_in_flight or not self._pending_results or self._session is None
                    or now < self._results_retry_at):
                return
            batch = self._take_batch()
            self._results_in_flight = True
            LOG.debug("sending %d results", len(batch))
            body = {"executor_id": self.executor_id, "session": self._session, "results": [r for _, r in batch]}

        def on_reply(reply: Reply) -> None:
            with self._lock:
                self._results_in_flight = False
                if reply.ok:
                    LOG.debug("result batch answered: %s", reply.body)
                    # Applied and refused both mean "stop sending": refused = no longer expected from us.
                    for key, sent in batch:
                        if self._pending_results.get(key) is sent:
                            del self._pending_results[key]
                    refused = reply.body.get("refused") if isinstance(reply.body, dict) else None
                    if refused:
                        LOG.info("scheduler refused results for %s", refused)
                    self._results_retry_at = 0.0
                else:
                    LOG.warning("result batch not answered (%s); keeping %d results", reply, len(batch))
                    self._results_retry_at = time.monotonic() + min(1.0, self._heartbeat_seconds)
            self._wake.set()

        conn.request(RESULT, body, on_reply)

    def _take_batch(self) -> List[Tuple[TaskKey, Dict[str, Any]]]:
        """Up to MAX_RESULTS_PER_BATCH results, fewer if the frame would pass the 1 MiB limit."""
        batch, size = [], 512
        for key, outcome in self._pending_results.items():
            encoded = len(json.dumps(outcome).encode("utf-8")) + 1
            if batch and (len(batch) >= MAX_RESULTS_PER_BATCH or size + encoded > MAX_FRAME_BYTES - 4096):
                break
            batch.append((key, outcome))
            size += encoded
        return batch

    # ---- drain ---------------------------------------------------------------------------------------

    def _advance_drain(self, conn: Connection, now: float) -> None:
        with self._lock:
            if not self._drain_requested or self._session is None:
                return
            self._admission.draining = True
            session = self._session
            if self._drain_sent_for != session:
                if self._drain_request_in_flight:
                    return
                self._drain_request_in_flight = True
                send_drain = True
            else:
                send_drain = False
                idle = (self._admission.in_flight == 0 and not self._pending_results
                        and not self._results_in_flight and not self._done_in_flight)
                if not idle:
                    return
                self._done_in_flight = True

        body = {"executor_id": self.executor_id, "session": session}
        if send_drain:
            def on_drain(reply: Reply) -> None:
                with self._lock:
                    self._drain_request_in_flight = False
                    if reply.ok:
                        self._drain_sent_for = session
                    else:
                        LOG.warning("drain request failed: %s", reply)
                self._wake.set()
            conn.request(DRAIN, body, on_drain)
            return

        body["done"] = True

        def on_done(reply: Reply) -> None:
            with self._lock:
                self._done_in_flight = False
                if reply.ok:
                    self._gone = True
                else:
                    LOG.warning("drain done failed: %s", reply)
            self._wake.set()
        conn.request(DRAIN, body, on_done)

    def _holds_nothing(self) -> bool:
        with self._lock:
            return self._admission.in_flight == 0 and not self._pending_results

    def _drain_expired(self) -> bool:
        """Starts the drain clock the first time a requested drain is seen; True once it ran out."""
        if not self._drain_requested:
            return False
        now = time.monotonic()
        if self._drain_deadline is None:
            self._drain_deadline = now + self.drain_timeout
            LOG.info("draining: finishing %d tasks", self._admission.in_flight)
        return now > self._drain_deadline

    def _drain_timed_out(self) -> int:
        with self._lock:
            left = self._admission.in_flight, len(self._pending_results)
        LOG.error("drain timed out with %d tasks in flight and %d unreported results", *left)
        self._shutdown()
        return 3

    def _shutdown(self) -> None:
        self._pool.shutdown(wait=False)
        if self._record:
            self._record.close()

    def _sleep(self, seconds: float) -> None:
        """Backoff between connection attempts; cut short when a drain leaves nothing to wait for."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (self._drain_requested and self._holds_nothing()):
            time.sleep(0.05)


def _cpu_load() -> float:
    try:
        return round(os.getloadavg()[0] / (os.cpu_count() or 1), 3)
    except (OSError, AttributeError):
        return 0.0


# =====================================================================================================
# CLI
# =====================================================================================================

def parse_servers(text: str) -> List[Tuple[str, int]]:
    servers = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise argparse.ArgumentTypeError("server %r is not host:port" % item)
        servers.append((host, int(port)))
    if not servers:
        raise argparse.ArgumentTypeError("no servers given")
    return servers


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="An ax executor speaking the TCP event-bus bridge protocol.")
    p.add_argument("--servers", required=True, type=parse_servers, help="host:port[,host:port...]")
    p.add_argument("--token", required=True, help="executor JWT (ax executor-token --executor-id ID)")
    p.add_argument("--processors", default="echo,noop,fail", help="comma-separated built-in processors")
    p.add_argument("--executor-id", help="default: the token's sub")
    p.add_argument("--record", help="append 'task_id attempt shard_index executor_id' per execution")
    p.add_argument("--threads", type=int, default=4, help="worker threads (default 4)")
    p.add_argument("--buffer", type=int, default=64, help="acked tasks held beyond the running ones (default 64)")
    p.add_argument("--zone", help="zone reported at registration")
    p.add_argument("--drain-timeout", type=float, default=60.0, help="seconds to finish a drain (default 60)")
    p.add_argument("--log-level", default="INFO")
    args = p.parse_args(argv)
    if args.threads < 1 or args.buffer < 0:
        p.error("--threads must be at least 1 and --buffer at least 0")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(threadName)s %(message)s")
    try:
        executor_id = args.executor_id or executor_id_from_token(args.token)
    except ValueError as e:
        print("error: %s (or pass --executor-id)" % e, file=sys.stderr)
        return 2
    available = builtin_processors(executor_id)
    wanted = [p.strip() for p in args.processors.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in available]
    if unknown or not wanted:
        print("error: unknown processors %s; built-in: %s" % (unknown, ", ".join(sorted(available))),
              file=sys.stderr)
        return 2
    executor = Executor(args.servers, args.token, executor_id, {p: available[p] for p in wanted},
                        threads=args.threads, buffer=args.buffer, zone=args.zone, record_path=args.record,
                        drain_timeout=args.drain_timeout)
    signal.signal(signal.SIGTERM, lambda *_: executor.request_drain())
    signal.signal(signal.SIGINT, lambda *_: executor.request_drain())
    return executor.run()


if __name__ == "__main__":
    sys.exit(main())
