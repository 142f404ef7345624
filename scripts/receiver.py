#!/usr/bin/env python3
"""A tiny HTTP target for trying ax: answers every POST with 200 and a JSON body.

    python3 scripts/receiver.py [PORT]        (default 9099; 127.0.0.1 only)

It prints each call's X-Ax-Task-Id and body, and echoes the body back inside {"received": …}, which
becomes the task's `result`. It does not verify X-Ax-Signature; see docs/api.md for how a real
receiver does.
"""
import http.server
import json
import sys


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        print("call for task", self.headers.get("x-ax-task-id"), body.decode("utf-8", "replace"), flush=True)
        try:
            received = json.loads(body)
        except ValueError:
            received = body.decode("utf-8", "replace")
        answer = json.dumps({"received": received}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass  # one line per call is printed above


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 9099
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
