package ax.e2e;

import ax.api.ConnectionLimits;
import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10, part 3, HTTP side: 1 000 hostile connections of each kind ({@code -Dax.faults.connections}; the
 * fault matrix's 2 000 in {@code faults/run.sh --full}) held against one node (-Xmx512m),
 * while a well-behaved client reads tasks. The node's heap after a full GC stays within the bound each
 * kind is documented to cost (README, "Resource limits"), and the client's p99 stays within 2x of the
 * same client's p99 without them. Then the deadlines: a connection that sends nothing or drips its
 * headers is closed after 10 s, one that drips its body gets 408 after 30 s.
 */
class HostileConnectionsIT {
  private static final int CONNECTIONS = Integer.getInteger("ax.faults.connections", 1_000);
  /** The kinds whose cost grows with the count (per-connection buffers) get a bound per 1 000 of them. */
  private static final long PER_THOUSAND = Math.max(1, CONNECTIONS / 1_000);
  private static final long MIB = 1024 * 1024;
  private static final String TASKS = "/openapi/v1/tasks";

  /** What one kind of hostile client sends when it connects, and then drips (null: nothing). */
  private record Kind(String name, byte[] opening, byte[] drip, long heapBoundBytes) {
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Headers a client that knows the access key (not the secret) can send: they pass the precheck. */
  private static String knownKeyHead(String path, long contentLength) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Host", "127.0.0.1");
    h.put("X-Ax-Key", AxCluster.KEY);
    h.put("X-Ax-Timestamp", Long.toString(System.currentTimeMillis()));
    h.put("X-Ax-Nonce", ApiClient.newNonce());
    h.put("X-Ax-Signature", "ab".repeat(32));
    h.put("Content-Type", "application/json");
    h.put("Content-Length", Long.toString(contentLength));
    StringBuilder b = new StringBuilder("POST " + path + " HTTP/1.1\r\n");
    h.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
    return b.append("\r\n").toString();
  }

  private static byte[] withBody(String head, int bodyBytes) {
    byte[] h = ascii(head);
    byte[] all = Arrays.copyOf(h, h.length + bodyBytes);
    Arrays.fill(all, h.length, all.length, (byte) ' ');
    return all;
  }

  private static List<Kind> kinds() {
    return List.of(
        new Kind("idle (connects, sends nothing)", new byte[0], null, 16 * MIB * PER_THOUSAND),
        new Kind("slow headers (a byte every 2 s)", ascii("POST " + TASKS + " HTTP/1.1\r\nHost: x\r\nX-Pad: "),
            ascii("a"), 16 * MIB * PER_THOUSAND),
        new Kind("unauthenticated body (no key, 64 KiB sent)", withBody("POST " + TASKS
            + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 90000\r\n\r\n", 64 * 1024),
            ascii(" "), 16 * MIB),
        new Kind("known key, 64 KiB of a 96 KiB body then a byte every 2 s", withBody(knownKeyHead(TASKS, 96 * 1024),
            64 * 1024), ascii(" "), 64 * MIB),
        new Kind("known key, 1 MiB of an 8 MiB batch then a byte every 2 s", withBody(knownKeyHead(TASKS + "/batch",
            8 * MIB), (int) MIB), ascii(" "), 64 * MIB));
  }

  /** Microseconds of {@code n} sequential signed GETs of one task. */
  private static long[] readMicros(ApiClient api, String id, int n) throws Exception {
    long[] micros = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      ApiClient.Reply r;
      try {
        r = api.get(TASKS + "/" + id);
      } catch (IOException e) {
        throw new IOException("read " + i + " of " + n + " failed", e);
      }
      micros[i] = (System.nanoTime() - t0) / 1_000;
      assertEquals(200, r.status(), r.raw().body());
    }
    return micros;
  }

  private static long p99(long[] micros) {
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(sorted.length * 0.99) - 1];
  }

  /** Opens the connections and sends each its opening; the drip thread keeps them talking. */
  private static List<Socket> open(int port, Kind kind) throws IOException {
    List<Socket> sockets = new ArrayList<>(CONNECTIONS);
    for (int i = 0; i < CONNECTIONS; i++) {
      Socket s = new Socket("127.0.0.1", port);
      s.setSoTimeout(1);
      try {
        s.getOutputStream().write(kind.opening());
      } catch (IOException refused) {
        // answered and closed before all of it was sent (the unauthenticated body): the server's right
      }
      sockets.add(s);
    }
    return sockets;
  }

  private static Thread dripper(List<Socket> sockets, byte[] drip) {
    Thread t = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        for (Socket s : sockets) {
          try {
            OutputStream out = s.getOutputStream();
            out.write(drip);
          } catch (IOException closed) {
            // the server closed it: that is its right
          }
        }
        try {
          Thread.sleep(2_000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "dripper");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Connections the server has not closed: a read times out instead of seeing end of stream. */
  private static int stillOpen(List<Socket> sockets) {
    int open = 0;
    for (Socket s : sockets) {
      try {
        while (s.getInputStream().read() >= 0) {
          // an answer: read past it, then see whether the connection stays
        }
      } catch (java.net.SocketTimeoutException stillThere) {
        open++;
      } catch (IOException reset) {
        // closed
      }
    }
    return open;
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing is all we want
      }
    }
  }

  private static TestPostgres pg;
  private static Receiver receiver;
  private static AxProcess node;

  @BeforeAll
  static void start() throws Exception {
    pg = TestPostgres.create();
    receiver = new Receiver();
    node = AxProcess.start("server", AxProcess.env(
        "AX_PG_URL", pg.url(),
        "AX_BOOTSTRAP_KEY", AxCluster.KEY + ":" + AxCluster.SECRET + ":hostile-conns",
        "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
        "AX_RATE_LIMIT", "100000"));
  }

  @AfterAll
  static void stop() throws Exception {
    node.close();
    receiver.close();
    pg.close();
  }

  @Test
  void hostileConnectionsOfEachKindCostBoundedHeapAndLeaveTheApiFast() throws Exception {
    ApiClient api = new ApiClient(node.port, AxCluster.KEY, AxCluster.SECRET);
    String id = api.submit(new JsonObject().put("task_type", "conns.read").put("callback_url", receiver.url())
        .put("delay_ms", 3_600_000)).body().getString("task_id");
    readMicros(api, id, 1_000); // warm-up
    long idleHeap = node.heapAfterGc();
    // "Normal" is the same client without hostile connections, measured before every kind and pooled,
    // so that one noisy moment on a shared 2-core machine neither fails nor excuses a kind.
    List<Long> normalSamples = new ArrayList<>();
    StringBuilder report = new StringBuilder(String.format("%-58s %6s %10s %8s %8s%n",
        CONNECTIONS + " connections of kind",
        "held", "heap +MiB", "p99 ms", "before"));
    List<String> failures = new ArrayList<>();
    List<long[]> measured = new ArrayList<>();
    for (Kind kind : kinds()) {
      long[] before = readMicros(api, id, 500);
      Arrays.stream(before).forEach(normalSamples::add);
      List<Socket> sockets = open(node.port, kind);
      Thread drip = kind.drip() == null ? null : dripper(sockets, kind.drip());
      Thread.sleep(1_000);
      long heap = node.heapAfterGc() - idleHeap;
      long p99;
      try {
        p99 = p99(readMicros(api, id, 500));
      } catch (IOException e) {
        throw new AssertionError(kind.name() + ": " + e + "\n" + report + node.output(), e);
      }
      int held = stillOpen(sockets);
      if (drip != null) {
        drip.interrupt();
        drip.join();
      }
      closeAll(sockets);
      measured.add(new long[] {heap, p99});
      report.append(String.format("%-58s %6d %10.1f %8.2f %8.2f%n", kind.name(), held, heap / (double) MIB,
          p99 / 1000.0, p99(before) / 1000.0));
      if (heap > kind.heapBoundBytes()) {
        failures.add(kind.name() + ": heap +" + heap / MIB + " MiB > bound " + kind.heapBoundBytes() / MIB + " MiB");
      }
    }
    long normal = p99(normalSamples.stream().mapToLong(Long::longValue).toArray());
    report.append(String.format("normal p99 (all 'before' samples pooled): %.2f ms%n", normal / 1000.0));
    System.out.print(report);
    for (int i = 0; i < measured.size(); i++) {
      if (measured.get(i)[1] > 2 * normal) {
        failures.add(kinds().get(i).name() + ": p99 " + measured.get(i)[1] + " us > 2 x " + normal + " us");
      }
    }
    long worstP99 = measured.stream().mapToLong(m -> m[1]).max().orElse(0);
    FaultRow.record("slow-clients", java.util.Map.of("kinds", measured.size(), "connections_per_kind", CONNECTIONS,
            "normal_p99_ms", normal / 1000.0, "worst_p99_under_attack_ms", worstP99 / 1000.0,
            "p99_ratio_worst", Math.round(worstP99 * 100.0 / Math.max(1, normal)) / 100.0,
            "node_alive", node.isAlive() ? 1 : 0),
        CONNECTIONS + " idle, slowloris, unauthenticated or slow-body connections of each kind held at once: a signed "
            + "GET's p99 measured under each"
            + (CONNECTIONS < 2_000 ? " (" + CONNECTIONS + " per kind, not the matrix's 2 000)" : ""));
    assertEquals(List.of(), failures, report.toString());
    assertTrue(node.isAlive());
  }

  /** Reads what the server sends until it closes the socket; then notes how long that took, in ms. */
  private static Thread closeWatcher(Socket s, long[] closedAfterMs, int slot, StringBuilder answers) {
    long t0 = System.nanoTime();
    Thread t = new Thread(() -> {
      try {
        s.setSoTimeout(60_000);
        byte[] buf = new byte[4096];
        int n;
        while ((n = s.getInputStream().read(buf)) >= 0) {
          synchronized (answers) {
            answers.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
          }
        }
      } catch (IOException e) {
        // reset: closed too
      }
      closedAfterMs[slot] = (System.nanoTime() - t0) / 1_000_000;
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Test
  void aConnectionThatSendsNothingOrDripsIsClosedAtItsDeadline() throws Exception {
    long[] closedAfter = new long[3];
    StringBuilder bodyAnswer = new StringBuilder();
    List<Socket> sockets = new ArrayList<>();
    List<Thread> watchers = new ArrayList<>();
    Socket idle = new Socket("127.0.0.1", node.port);
    Socket slowHeaders = new Socket("127.0.0.1", node.port);
    slowHeaders.getOutputStream().write(ascii("GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: "));
    Socket slowBody = new Socket("127.0.0.1", node.port);
    slowBody.getOutputStream().write(ascii(knownKeyHead(TASKS, 1_000)));
    sockets.addAll(List.of(idle, slowHeaders, slowBody));
    watchers.add(closeWatcher(idle, closedAfter, 0, new StringBuilder()));
    watchers.add(closeWatcher(slowHeaders, closedAfter, 1, new StringBuilder()));
    watchers.add(closeWatcher(slowBody, closedAfter, 2, bodyAnswer));
    Thread drip = dripper(List.of(slowHeaders, slowBody), ascii("a"));
    for (Thread w : watchers) {
      w.join(45_000);
    }
    drip.interrupt();
    closeAll(sockets);
    System.out.printf("closed after: idle %d ms, slow headers %d ms, slow body %d ms%n", closedAfter[0],
        closedAfter[1], closedAfter[2]);
    long first = ConnectionLimits.FIRST_REQUEST_MS;
    long body = ConnectionLimits.BODY_MS;
    assertTrue(closedAfter[0] >= first - 500 && closedAfter[0] <= first + 3_000, "idle: " + closedAfter[0]);
    assertTrue(closedAfter[1] >= first - 500 && closedAfter[1] <= first + 3_000, "slow headers: " + closedAfter[1]);
    assertTrue(closedAfter[2] >= body - 500 && closedAfter[2] <= body + 3_000, "slow body: " + closedAfter[2]);
    assertTrue(bodyAnswer.toString().startsWith("HTTP/1.1 408"), bodyAnswer.toString());
  }
}
