"""Unit tests for the pure parts of ax_executor: frames, the dedupe window and admission.

Run: python3 -m unittest discover -s examples/python-executor
"""

import base64
import json
import struct
import threading
import unittest

import ax_executor as ax


class FakeClock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def task(task_id, attempt=1, shard_index=0, processor="echo"):
    return {"task_id": task_id, "attempt": attempt, "shard_index": shard_index, "processor": processor,
            "payload": {"n": task_id}}


class FrameEncodingTest(unittest.TestCase):

    def test_a_frame_is_a_big_endian_length_followed_by_utf8_json(self):
        data = ax.encode_frame({"type": "ping", "text": "é"})
        (length,) = struct.unpack(">I", data[:4])
        self.assertEqual(len(data) - 4, length)
        self.assertEqual({"type": "ping", "text": "é"}, json.loads(data[4:].decode("utf-8")))

    def test_a_frame_over_one_mebibyte_is_never_sent(self):
        with self.assertRaises(ax.FrameTooLarge):
            ax.encode_frame({"body": "x" * (1024 * 1024)})

    def test_task_ids_stay_exact_decimal_strings(self):
        big = "7421394872192303104"  # beyond 2^53: a float would round it
        frame = ax.FrameDecoder().feed(ax.encode_frame({"tasks": [{"task_id": big}]}))[0]
        self.assertEqual(big, frame["tasks"][0]["task_id"])


class FrameDecodingTest(unittest.TestCase):

    def setUp(self):
        self.frames = [{"type": "message", "address": "a", "body": {"i": i}} for i in range(3)]
        self.stream = b"".join(ax.encode_frame(f) for f in self.frames)

    def test_coalesced_frames_in_one_read_all_come_out_in_order(self):
        self.assertEqual(self.frames, ax.FrameDecoder().feed(self.stream))

    def test_a_frame_split_byte_by_byte_comes_out_once_complete(self):
        decoder = ax.FrameDecoder()
        out = []
        for i in range(len(self.stream)):
            out.extend(decoder.feed(self.stream[i:i + 1]))
        self.assertEqual(self.frames, out)

    def test_a_split_inside_the_length_prefix_is_handled(self):
        decoder = ax.FrameDecoder()
        self.assertEqual([], decoder.feed(self.stream[:2]))
        self.assertEqual(self.frames, decoder.feed(self.stream[2:]))

    def test_a_read_ending_mid_frame_keeps_the_rest_for_later(self):
        decoder = ax.FrameDecoder()
        first = len(ax.encode_frame(self.frames[0]))
        cut = first + 7
        self.assertEqual(self.frames[:1], decoder.feed(self.stream[:cut]))
        self.assertEqual(self.frames[1:], decoder.feed(self.stream[cut:]))

    def test_an_invalid_json_frame_is_skipped_and_the_next_one_still_decodes(self):
        bad = b"{nope"
        data = struct.pack(">I", len(bad)) + bad + ax.encode_frame(self.frames[0])
        self.assertEqual(self.frames[:1], ax.FrameDecoder().feed(data))

    def test_an_absurd_announced_length_is_refused(self):
        with self.assertRaises(ax.FrameTooLarge):
            ax.FrameDecoder(max_frame_bytes=100).feed(struct.pack(">I", 101))


class DedupeWindowTest(unittest.TestCase):

    def setUp(self):
        self.clock = FakeClock()
        self.window = ax.DedupeWindow(300, self.clock)
        self.key = ("7421394872192303104", 1, 0)

    def test_a_running_execution_is_known_but_has_no_result_yet(self):
        self.window.start(self.key)
        self.assertIn(self.key, self.window)
        self.assertIsNone(self.window.recorded_result(self.key))

    def test_a_finished_execution_keeps_its_result_for_five_minutes(self):
        self.window.start(self.key)
        self.window.finish(self.key, {"status": "SUCCESS"})
        self.clock.now += 299
        self.assertEqual({"status": "SUCCESS"}, self.window.recorded_result(self.key))
        self.clock.now += 2
        self.assertNotIn(self.key, self.window)

    def test_a_running_execution_never_expires(self):
        self.window.start(self.key)
        self.clock.now += 10_000
        self.assertIn(self.key, self.window)

    def test_attempt_and_shard_are_part_of_the_key(self):
        self.window.start(self.key)
        self.assertNotIn(("7421394872192303104", 2, 0), self.window)
        self.assertNotIn(("7421394872192303104", 1, 1), self.window)

    def test_expiry_looks_past_a_long_running_entry(self):
        old = ("1", 1, 0)
        self.window.start(self.key)          # still running, first in order
        self.window.start(old)
        self.window.finish(old, {"status": "SUCCESS"})
        self.clock.now += 301
        self.assertNotIn(old, self.window)
        self.assertEqual(1, len(self.window))


class AdmissionTest(unittest.TestCase):

    def setUp(self):
        self.dedupe = ax.DedupeWindow(300, FakeClock())
        self.admission = ax.Admission(capacity=3)

    def dispatch(self, *tasks, epoch=7):
        return self.admission.decide({"epoch": epoch, "tasks": list(tasks)}, self.dedupe)

    def test_accepts_up_to_capacity_and_rejects_the_rest(self):
        d = self.dispatch(*(task(str(i)) for i in range(5)))
        self.assertEqual(["0", "1", "2"], d.accepted)
        self.assertEqual(["3", "4"], d.rejected)
        self.assertEqual({"accepted": ["0", "1", "2"], "rejected": ["3", "4"]}, d.reply())
        self.assertEqual(3, len(d.to_run))

    def test_a_finished_task_frees_its_slot(self):
        self.dispatch(task("1"), task("2"), task("3"))
        self.assertEqual(["4"], self.dispatch(task("4")).rejected)
        self.admission.finished()
        self.assertEqual(["5"], self.dispatch(task("5")).accepted)

    def test_a_dispatch_from_an_older_epoch_is_rejected_whole(self):
        self.dispatch(task("1"), epoch=8)
        d = self.dispatch(task("2"), task("3"), epoch=7)
        self.assertEqual([], d.accepted)
        self.assertEqual(["2", "3"], d.rejected)
        self.assertEqual("stale_epoch", d.reply()["reason"])
        self.assertEqual(1, self.admission.in_flight)

    def test_epochs_seen_in_answers_also_fence_dispatches(self):
        self.admission.observe_epoch(9)
        self.assertEqual("stale_epoch", self.dispatch(task("1"), epoch=8).reason)
        self.assertEqual(["2"], self.dispatch(task("2"), epoch=9).accepted)

    def test_a_duplicate_is_accepted_without_running_or_taking_a_slot(self):
        self.dispatch(task("1"))
        d = self.dispatch(task("1"), task("1", shard_index=1))
        self.assertEqual(["1", "1"], d.accepted)
        self.assertEqual([("1", 1, 0)], d.duplicates)
        self.assertEqual([task("1", shard_index=1)], d.to_run)
        self.assertEqual(2, self.admission.in_flight)

    def test_a_duplicate_is_accepted_even_when_full(self):
        self.dispatch(task("1"), task("2"), task("3"))
        d = self.dispatch(task("2"))
        self.assertEqual(["2"], d.accepted)
        self.assertEqual([], d.to_run)

    def test_the_same_task_twice_in_one_dispatch_runs_once(self):
        d = self.dispatch(task("1"), task("1"))
        self.assertEqual(1, len(d.to_run))
        self.assertEqual(["1", "1"], d.accepted)

    def test_a_new_attempt_of_a_task_runs_again(self):
        self.dispatch(task("1", attempt=1))
        self.assertEqual(1, len(self.dispatch(task("1", attempt=2)).to_run))

    def test_while_draining_new_work_is_rejected(self):
        self.admission.draining = True
        d = self.dispatch(task("1"))
        self.assertEqual(["1"], d.rejected)
        self.assertEqual("draining", d.reason)


class TraceContextTest(unittest.TestCase):
    VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    def test_a_valid_traceparent_is_read_with_its_tracestate(self):
        ctx = ax.trace_context(dict(task("1"), traceparent=self.VALID, tracestate="ax=1"))
        self.assertEqual(self.VALID, ctx["traceparent"])
        self.assertEqual("4bf92f3577b34da6a3ce929d0e0e4736", ctx["trace_id"])
        self.assertEqual("00f067aa0ba902b7", ctx["parent_id"])
        self.assertEqual("ax=1", ctx["tracestate"])

    def test_no_or_an_invalid_traceparent_is_ignored(self):
        self.assertIsNone(ax.trace_context(task("1")))
        for bad in ["00-nope", self.VALID.upper(), "ff" + self.VALID[2:], self.VALID + "-x",
                    "00-" + "0" * 32 + "-00f067aa0ba902b7-01", 42]:
            self.assertIsNone(ax.trace_context(dict(task("1"), traceparent=bad)), bad)


class TokenTest(unittest.TestCase):

    def test_the_executor_id_defaults_to_the_tokens_subject(self):
        def part(obj):
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
        token = "%s.%s.sig" % (part({"alg": "HS256"}), part({"sub": "ex-py-1", "aud": "ax-executor"}))
        self.assertEqual("ex-py-1", ax.executor_id_from_token(token))

    def test_a_token_without_a_subject_is_an_error(self):
        with self.assertRaises(ValueError):
            ax.executor_id_from_token("not-a-jwt")


class ProcessorsTest(unittest.TestCase):

    def test_echo_returns_the_payload_the_executor_and_the_shard(self):
        out = ax.builtin_processors("ex-1")["echo"](task("5", shard_index=2))
        self.assertEqual({"payload": {"n": "5"}, "executor_id": "ex-1", "shard_index": 2, "lang": "python"}, out)

    def test_noop_returns_null_and_fail_raises(self):
        processors = ax.builtin_processors("ex-1")
        self.assertIsNone(processors["noop"](task("1")))
        with self.assertRaises(Exception):
            processors["fail"](task("1"))

    def test_servers_parse_as_host_and_port(self):
        self.assertEqual([("127.0.0.1", 7000), ("h", 7001)], ax.parse_servers("127.0.0.1:7000, h:7001"))


class FakeConnection:
    """Captures what the executor sends, so the session logic runs without a socket."""

    def __init__(self):
        self.replies = []
        self.requests = []

    def reply(self, address, body):
        self.replies.append((address, body))

    def request(self, address, body, callback, headers=None, timeout=None):
        self.requests.append((address, body, callback))


class ExecutorResultTest(unittest.TestCase):

    def setUp(self):
        self.executor = ax.Executor([("127.0.0.1", 1)], "t", "ex-1", ax.builtin_processors("ex-1"), threads=1,
                                    buffer=0)
        self.executor._session = "s1"
        self.conn = FakeConnection()

    def tearDown(self):
        self.executor._pool.shutdown(wait=True)

    def deliver(self, *tasks):
        frame = {"type": "message", "address": "ax.exec.inbox.ex-1", "replyAddress": "r%d" % len(self.conn.replies),
                 "body": {"epoch": 7, "tasks": list(tasks)}}
        self.executor._on_message(self.conn, frame)
        return self.conn.replies[-1][1]

    def run_all(self):
        self.executor._pool.submit(lambda: None).result(timeout=5)  # one worker: all earlier tasks are done

    def flush(self):
        """Sends the pending results; fails if there was nothing to send."""
        before = len(self.conn.requests)
        self.executor._flush_results(self.conn, now=1e12)
        self.assertEqual(before + 1, len(self.conn.requests), "a result batch was sent")
        return self.conn.requests[-1]

    def test_a_duplicate_while_its_result_batch_is_in_flight_is_still_sent_again(self):
        self.assertEqual(["1"], self.deliver(task("1"))["accepted"])
        self.run_all()
        _, body, answer = self.flush()
        self.assertEqual(["1"], [r["task_id"] for r in body["results"]])

        self.assertEqual(["1"], self.deliver(task("1"))["accepted"])   # duplicate arrives mid-flight
        answer(ax.Reply(True, body={"applied": ["1"], "refused": []}))

        _, again, _ = self.flush()
        self.assertEqual(["1"], [r["task_id"] for r in again["results"]])
        self.assertEqual(1, self.executor._executed, "ran once")

    def test_an_unanswered_batch_is_kept_and_an_answered_one_dropped(self):
        self.deliver(task("1"))
        self.run_all()
        _, _, answer = self.flush()
        answer(ax.Reply(False, code=-1, message="timeout"))
        self.assertEqual(1, len(self.executor._pending_results))
        self.executor._results_retry_at = 0.0
        _, _, answer = self.flush()
        answer(ax.Reply(True, body={"applied": [], "refused": ["1"]}))
        self.assertEqual(0, len(self.executor._pending_results))

    def test_a_failing_handler_is_reported_as_failed(self):
        self.deliver(task("1", processor="fail"))
        self.run_all()
        _, body, _ = self.flush()
        outcome = body["results"][0]
        self.assertEqual("FAILED", outcome["status"])
        self.assertIn("always fails", outcome["error"])



class LostConnection:
    """A connection whose socket the reader already closed: every send fails as a closed descriptor does."""

    label = "127.0.0.1:1"

    def __init__(self):
        self.closed = threading.Event()

    def send(self, frame):
        raise OSError(9, "Bad file descriptor")

    def close(self):
        self.closed.set()


class SessionTest(unittest.TestCase):

    def test_a_connection_lost_right_after_registering_means_connecting_again_not_exiting(self):
        executor = ax.Executor([("127.0.0.1", 1)], "t", "ex-1", ax.builtin_processors("ex-1"), threads=1, buffer=0)
        executor._register = lambda conn, first: True   # the node answered the register request, then went away
        conn = LostConnection()
        try:
            self.assertTrue(executor._serve(conn), "registered, so run() resets its backoff and connects again")
        finally:
            executor._pool.shutdown(wait=True)
        self.assertTrue(conn.closed.is_set())

if __name__ == "__main__":
    unittest.main()
