package ax.e2e;

import ax.e2e.FuzzCase.Expect;
import ax.e2e.FuzzCase.Signing;
import ax.signing.RequestSigning;
import ax.testing.ContractValidator;
import ax.testing.ExactJson;
import ax.testing.TestPostgres;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * issue 10, part 2: requests generated from openapi.yaml ({@link FuzzRequests}) against one node started
 * from the jar. For every request: an answer within 10 s; a 2xx or a 4xx, never a 5xx; every 4xx an
 * {@code application/problem+json} with type, title, status, detail and code, and every answer as
 * openapi.yaml declares it for the operation, its status included ({@link ContractValidator}); the answer the contract
 * gives the mutation where it gives one; nothing stored from a refused request (rows of the tenant
 * counted before and after); every task stored read back with what was sent and listed. At the end:
 * every task stored with a callback to the test's target and due within 3 s was called, and the
 * node's log has no SEVERE line.
 *
 * <p>CI runs a bounded number of tries; {@code -Dax.fuzz.tries=20000} runs longer, and
 * {@code -Dax.fuzz.seed=<seed>} replays a reported run ({@link FuzzTries}).
 */
class ApiFuzzIT {
  private static final int ANSWER_TIMEOUT_MS = 10_000;
  private static final String TASKS = FuzzRequests.TASKS;

  private static TestPostgres pg;
  private static AxCluster ax;
  private static Receiver receiver;
  private static ContractValidator contract;
  private static ApiClient api;
  private static Connection db;
  private static int port;
  private static long startedAt;

  /** Every task this run created (top-level), for requests about a known id. */
  private static final List<Long> known = Collections.synchronizedList(new ArrayList<>());
  private static final Set<Long> knownSet = ConcurrentHashMap.newKeySet();
  private static final List<String> cursors = Collections.synchronizedList(new ArrayList<>());
  /** Tasks that must reach the test's HTTP target: id → what created it. */
  private static final Map<Long, String> dueCallbacks = new ConcurrentHashMap<>();
  private static final Set<Long> cancelled = ConcurrentHashMap.newKeySet();
  private static final Map<String, Integer> answers = new TreeMap<>();
  private static final Map<String, Integer> undeclared = new TreeMap<>();
  private static int tries;
  /**
   * {@code -Dax.fuzz.collect=true}: a failing request does not stop the run; every distinct failure is
   * counted and its first example reported at the end (to see every finding of a long run at once).
   */
  private static final boolean COLLECT = Boolean.getBoolean("ax.fuzz.collect");
  private static final Map<String, Integer> collected = new TreeMap<>();
  private static final Map<String, String> examples = new HashMap<>();
  private static int closedWhileSending;
  /** Vert.x's own 501 to a request line of another HTTP version: a protocol answer, not a server failure. */
  private static final java.util.concurrent.atomic.AtomicInteger versionAnswers =
      new java.util.concurrent.atomic.AtomicInteger();

  @BeforeContainer
  static void start() throws Exception {
    startedAt = System.nanoTime();
    contract = ContractValidator.load("openapi.yaml");
    pg = TestPostgres.create();
    receiver = new Receiver();
    ax = AxCluster.start(pg, 1, Map.of());
    port = ax.nodes.get(0).port;
    api = ax.api(0);
    db = pg.connect();
    // a few tasks to ask about, and a cursor to page with, before the first generated request
    for (int i = 0; i < 3; i++) {
      ApiClient.Reply r = api.submit(new JsonObject().put("task_type", FuzzRequests.SHARED_TYPES.get(0))
          .put("callback_url", receiver.url()).put("delay_ms", 3_600_000).put("dedupe", false));
      if (r.status() != 201) {
        throw new IllegalStateException("seed task refused: " + r.raw().body());
      }
      remember(Long.parseLong(r.body().getString("task_id")));
    }
    ApiClient.Reply page = api.get(TASKS + "?limit=1");
    cursors.add(page.body().getString("next_cursor"));
    System.out.printf("ApiFuzzIT: node up in %d ms%n", (System.nanoTime() - startedAt) / 1_000_000);
  }

  @AfterContainer
  static void stop() throws Exception {
    List<String> failures = new ArrayList<>();
    try {
      if (ax != null) {
        failures.addAll(checkDispatched());
        String log = ax.nodes.get(0).output();
        List<String> severe = log.lines().filter(l -> l.contains("SEVERE")).toList();
        if (!severe.isEmpty()) {
          int at = log.indexOf("SEVERE");
          failures.add("the node logged " + severe.size() + " SEVERE line(s); input must never cause one. First:\n"
              + log.substring(Math.max(0, at - 200), Math.min(log.length(), at + 3_000)));
        }
      }
      if (!collected.isEmpty()) {
        StringBuilder b = new StringBuilder(collected.size() + " distinct failure(s) collected:");
        collected.forEach((k, n) -> b.append("\n\n[").append(n).append("x] ").append(examples.get(k)));
        failures.add(b.toString());
      }
      long ms = (System.nanoTime() - startedAt) / 1_000_000;
      int fiveHundreds;
      synchronized (answers) {
        fiveHundreds = answers.entrySet().stream()
            .filter(e -> e.getKey().matches("(protocol )?5[0-9][0-9]( .*)?")).mapToInt(Map.Entry::getValue).sum();
      }
      // The row promises no server failure; Vert.x's 501 to "HTTP/2.0" on a plain socket is counted apart.
      FaultRow.record("malformed", Map.of("requests", tries, "answers_5xx", fiveHundreds - versionAnswers.get(),
              "http_version_501", versionAnswers.get(), "failures", failures.size()),
          tries + " generated requests (wrong types, extreme values, deep nesting, invalid UTF-8, oversized and "
              + "chunked bodies, malformed HTTP) against one node: answers " + answers);
      System.out.printf("ApiFuzzIT: %d tries in %d ms (%.1f/s, node start and dispatch wait included); "
              + "answers %s; closed by the server while the body was being sent: %d; statuses the contract does "
              + "not declare for the operation: %s%n", tries, ms, tries * 1000.0 / Math.max(1, ms), answers,
          closedWhileSending, undeclared);
    } finally {
      for (AutoCloseable c : new AutoCloseable[] {db, ax, receiver, pg, contract}) {
        if (c != null) {
          try {
            c.close();
          } catch (Exception e) {
            // keep closing the rest
          }
        }
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n\n", failures));
    }
  }

  @Provide
  Arbitrary<FuzzCase> requests() {
    return new FuzzRequests(receiver.url()).all();
  }

  @Property(tries = 1000, shrinking = ShrinkingMode.BOUNDED)
  @AddLifecycleHook(FuzzTries.class)
  void everyAnswerIsASuccessOrAProblemAndOnlyWhatSucceededIsStored(@ForAll("requests") FuzzCase c) throws Exception {
    tries++;
    collecting(() -> exchange(c));
  }

  interface Check {
    void run() throws Exception;
  }

  /** Runs one try; in collect mode its failure is counted instead of thrown. */
  private static void collecting(Check check) throws Exception {
    if (!COLLECT) {
      check.run();
      return;
    }
    try {
      check.run();
    } catch (AssertionError e) {
      String status = x(e.getMessage());
      String first = (status + " " + e.getMessage().lines().findFirst().orElse("")).replaceAll("[0-9]{6,}", "N");
      synchronized (collected) {
        collected.merge(first.length() > 160 ? first.substring(0, 160) : first, 1, Integer::sum);
        examples.putIfAbsent(first.length() > 160 ? first.substring(0, 160) : first, e.getMessage());
      }
    }
  }

  /** The status of the answer a failure message shows. */
  private static String x(String message) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\n  answer: ([0-9]+|none)").matcher(message);
    return m.find() ? "[" + m.group(1) + "]" : "";
  }

  private static void exchange(FuzzCase c) throws Exception {
    Sent sent = sent(c);
    long[] before = counts();
    long t0 = System.currentTimeMillis();
    RawHttp.Exchange x = RawHttp.send(port, sent.request(), ANSWER_TIMEOUT_MS);
    long t1 = System.currentTimeMillis();
    Report report = new Report(c, sent, x);
    List<Created> created = judge(c, sent, x, report, t0, t1);
    checkStored(before, created, report);
    if (c.signing() == Signing.REPLAYED) {
      long[] again = counts();
      RawHttp.Exchange y = RawHttp.send(port, sent.request(), ANSWER_TIMEOUT_MS);
      Report second = new Report(c.with("the same request again", Expect.any("")), sent, y);
      if (y.response() != null) {
        boolean firstPassed = x.response() != null && x.response().status() / 100 == 2;
        second.require(y.response().status() / 100 == 4, "a replayed request must be refused");
        if (firstPassed) {
          second.require(y.response().status() == 401 && "nonce_replayed".equals(code(y.response())),
              "a replay of an accepted request must be 401 nonce_replayed");
        }
      } else {
        second.require(!y.timedOut(), "no answer to the replay within 10 s");
      }
      checkStored(again, List.of(), second);
    }
    for (Created t : created) {
      readBack(t, report);
    }
    listed(created, report);
  }

  // ---------------------------------------------------------------------------------------------
  // HTTP framing the codec itself judges

  static final List<String> PROTOCOL = List.of("content-length twice, same value", "content-length twice, different",
      "content-length +n", "content-length 12abc", "content-length -1", "content-length 00n", "content-length and chunked",
      "transfer-encoding gzip, chunked", "transfer-encoding chunked, chunked", "transfer-encoding identity",
      "transfer-encoding Chunked", "chunk size not hex", "chunk extension", "chunk size beyond a long",
      "headers over 16 KiB", "request line over 4 KiB", "space in the target", "control character in the target",
      "raw UTF-8 in the path", "HTTP/1.0", "HTTP/2.0 on a plain socket", "no Host", "two Host headers",
      "lower-case method", "folded header line", "space in a header name", "header line without a colon",
      "NUL in a header value", "ISO-8859-1 in X-Ax-Key", "bare LF line ends", "empty header name");

  @Provide
  Arbitrary<String> protocolJunk() {
    return net.jqwik.api.Arbitraries.of(PROTOCOL);
  }

  /**
   * Requests the HTTP codec refuses or reads its own way (lying or repeated Content-Length, odd
   * Transfer-Encoding, bad chunks, oversized heads, malformed request lines and headers): an answer
   * arrives, it is never a 5xx, a 4xx is a problem document like every other, and nothing is stored
   * unless the answer says so.
   */
  @Property(tries = 60, shrinking = ShrinkingMode.OFF)
  @AddLifecycleHook(FuzzTries.class)
  void malformedHttpIsAnsweredWithAProblemAndStoresNothing(@ForAll("protocolJunk") String kind) throws Exception {
    tries++;
    collecting(() -> malformed(kind));
  }

  private static void malformed(String kind) throws Exception {
    long now = System.currentTimeMillis();
    String path = TASKS;
    byte[] body = new JsonObject().put("task_type", "fz.protocol").put("callback_url", receiver.url())
        .put("delay_ms", 3_600_000).encode().getBytes(StandardCharsets.UTF_8);
    String target = path;
    String method = "POST";
    String version = "HTTP/1.1";
    String eol = "\r\n";
    List<String> extra = new ArrayList<>();
    List<String> framing = new ArrayList<>(List.of("Content-Length: " + body.length));
    byte[] wireBody = body;
    switch (kind) {
      case "content-length twice, same value" -> framing.add("Content-Length: " + body.length);
      case "content-length twice, different" -> framing.add("Content-Length: " + (body.length + 1));
      case "content-length +n" -> framing = List.of("Content-Length: +" + body.length);
      case "content-length 12abc" -> framing = List.of("Content-Length: 12abc");
      case "content-length -1" -> framing = List.of("Content-Length: -1");
      case "content-length 00n" -> framing = List.of("Content-Length: 00" + body.length);
      case "content-length and chunked" -> {
        framing = List.of("Content-Length: " + body.length, "Transfer-Encoding: chunked");
        wireBody = chunked(body);
      }
      case "transfer-encoding gzip, chunked" -> {
        framing = List.of("Transfer-Encoding: gzip, chunked");
        wireBody = chunked(body);
      }
      case "transfer-encoding chunked, chunked" -> {
        framing = List.of("Transfer-Encoding: chunked, chunked");
        wireBody = chunked(body);
      }
      case "transfer-encoding identity" -> framing.add("Transfer-Encoding: identity");
      case "transfer-encoding Chunked" -> {
        framing = List.of("Transfer-Encoding: Chunked");
        wireBody = chunked(body);
      }
      case "chunk size not hex" -> {
        framing = List.of("Transfer-Encoding: chunked");
        wireBody = ("zz\r\n" + new String(body, StandardCharsets.ISO_8859_1) + "\r\n0\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);
      }
      case "chunk extension" -> {
        framing = List.of("Transfer-Encoding: chunked");
        wireBody = (Integer.toHexString(body.length) + ";name=value\r\n" + new String(body, StandardCharsets.ISO_8859_1)
            + "\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
      }
      case "chunk size beyond a long" -> {
        framing = List.of("Transfer-Encoding: chunked");
        wireBody = ("fffffffffffffffffff\r\n" + new String(body, StandardCharsets.ISO_8859_1))
            .getBytes(StandardCharsets.ISO_8859_1);
      }
      case "headers over 16 KiB" -> extra.add("X-Pad: " + "p".repeat(17 * 1024));
      case "request line over 4 KiB" -> target = path + "?a=" + "q".repeat(5_000);
      case "space in the target" -> target = path + "?a=b c";
      case "control character in the target" -> target = path + "?a=b\u0001";
      case "raw UTF-8 in the path" -> target = new String((path + "/\u20ac").getBytes(StandardCharsets.UTF_8),
          StandardCharsets.ISO_8859_1);
      case "HTTP/1.0" -> version = "HTTP/1.0";
      case "HTTP/2.0 on a plain socket" -> version = "HTTP/2.0";
      case "no Host" -> extra.add("!nohost");
      case "two Host headers" -> extra.add("Host: evil.example");
      case "lower-case method" -> method = "post";
      case "folded header line" -> extra.add("X-Folded: a" + eol + " b");
      case "space in a header name" -> extra.add("X Ax: 1");
      case "header line without a colon" -> extra.add("NoColonHere");
      case "NUL in a header value" -> extra.add("X-Thing: a\u0000b");
      case "ISO-8859-1 in X-Ax-Key" -> extra.add("!key:cl\u00e9");
      case "bare LF line ends" -> eol = "\n";
      case "empty header name" -> extra.add(": value");
      default -> throw new IllegalArgumentException(kind);
    }
    String query = target.contains("?") ? target.substring(target.indexOf('?') + 1) : null;
    String signedPath = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
    String key = extra.contains("!key:cl\u00e9") ? "cl\u00e9" : api.key;
    List<String[]> signing = signingHeaders(Signing.VALID, method.toUpperCase(), signedPath, query, body, now);
    StringBuilder head = new StringBuilder(method + " " + target + " " + version + eol);
    if (!extra.contains("!nohost")) {
      head.append("Host: 127.0.0.1:").append(port).append(eol);
    }
    head.append("Content-Type: application/json").append(eol);
    for (String[] h : signing) {
      head.append(h[0]).append(": ").append(h[0].equals("X-Ax-Key") ? key : h[1]).append(eol);
    }
    for (String f : framing) {
      head.append(f).append(eol);
    }
    for (String e : extra) {
      if (!e.startsWith("!")) {
        head.append(e).append(eol);
      }
    }
    head.append(eol);
    byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    long[] before = counts();
    RawHttp.Exchange x = RawHttp.send(port, headBytes, wireBody, false, ANSWER_TIMEOUT_MS);
    FuzzCase c = new FuzzCase("protocol: " + kind, null, method, target, null, new FuzzCase.Raw(wireBody),
        new RawHttp.NoLength(), null, List.of(), Signing.VALID, Expect.any(kind), List.of());
    List<String[]> shown = new ArrayList<>();
    shown.add(new String[] {"(head as sent)", FuzzJson.escape(headBytes, 600)});
    Report report = new Report(c, new Sent(new RawHttp.Request(method, target, shown, wireBody,
        new RawHttp.NoLength()), wireBody, signedPath, query), x);
    report.require(!x.timedOut(), "no answer within " + ANSWER_TIMEOUT_MS + " ms");
    List<Created> created = new ArrayList<>();
    // Chunk framing that breaks after the request began: Vert.x closes the connection at once, before
    // any answer can be written (Http1xServerConnection.handleError); that is an end, not a hang.
    boolean brokenChunks = kind.equals("chunk size not hex") || kind.equals("chunk size beyond a long");
    if (x.response() == null) {
      report.require(x.bodyUnsent() || brokenChunks, "the connection ended without an answer: " + x.why());
    } else {
      RawHttp.Response r = x.response();
      synchronized (answers) {
        answers.merge("protocol " + r.status(), 1, Integer::sum);
      }
      // The one 5xx input can cause: Vert.x answers a request line of another HTTP version 501 itself,
      // before any handler of ours (README, "Health and resource limits").
      boolean vertxVersionAnswer = kind.equals("HTTP/2.0 on a plain socket") && r.status() == 501;
      if (vertxVersionAnswer) {
        versionAnswers.incrementAndGet();
      }
      report.require(r.status() / 100 == 2 || r.status() / 100 == 4 || vertxVersionAnswer, "neither a 2xx nor a 4xx");
      if (r.status() / 100 == 4) {
        checkProblem(r, report);
      } else if (r.status() == 201) {
        created.add(new Created(Long.parseLong(new JsonObject(r.text()).getString("task_id")), "createTask",
            null, now, now, true));
      }
    }
    checkStored(before, created, report);
  }

  private static byte[] chunked(byte[] body) {
    return (Integer.toHexString(body.length) + "\r\n" + new String(body, StandardCharsets.ISO_8859_1) + "\r\n0\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  // ---------------------------------------------------------------------------------------------
  // sending

  record Sent(RawHttp.Request request, byte[] body, String path, String query) {
  }

  private static Sent sent(FuzzCase c) {
    long now = System.currentTimeMillis();
    String path = c.path();
    if (path.contains(FuzzCase.KNOWN_ID)) {
      path = path.replace(FuzzCase.KNOWN_ID, Long.toString(known.get(ThreadLocalRandom.current().nextInt(known.size()))));
    }
    String query = c.query();
    if (query != null && query.contains(FuzzCase.CURSOR)) {
      query = query.replace(FuzzCase.CURSOR, URLEncoder.encode(cursors.get(
          ThreadLocalRandom.current().nextInt(cursors.size())), StandardCharsets.UTF_8));
    }
    byte[] body = c.body().bytes(now);
    byte[] signedBody = c.framing() instanceof RawHttp.NoLength ? new byte[0] : body;
    List<String[]> headers = new ArrayList<>();
    if (c.contentType() != null) {
      headers.add(new String[] {"Content-Type", c.contentType()});
    }
    headers.addAll(signingHeaders(c.signing(), c.method(), path, query, signedBody, now));
    headers.addAll(c.headers());
    RawHttp.Request r = new RawHttp.Request(c.method(), path + (query == null ? "" : "?" + query), headers, body,
        c.framing());
    return new Sent(r, body, path, query);
  }

  private static List<String[]> signingHeaders(Signing s, String method, String path, String query, byte[] body,
                                               long now) {
    if (s == Signing.UNSIGNED) {
      return List.of();
    }
    String key = s == Signing.UNKNOWN_KEY ? "nobody-" + ThreadLocalRandom.current().nextInt(1_000_000) : api.key;
    String secret = s == Signing.WRONG_SECRET ? "not-the-secret-0123456789abcdef" : api.secret;
    String ts = switch (s) {
      case STALE -> Long.toString(now - 301_000);
      case FUTURE -> Long.toString(now + 301_000);
      case TIMESTAMP_NOT_A_NUMBER -> "17e11";
      case TIMESTAMP_SECONDS -> Long.toString(now / 1000);
      default -> Long.toString(now);
    };
    String nonce = switch (s) {
      case SHORT_NONCE -> "abc1234";
      case LONG_NONCE -> "n".repeat(65);
      case NONCE_BAD_CHARS -> "nonce!with*bad.chars";
      default -> ApiClient.newNonce();
    };
    byte[] signedBody = body;
    if (s == Signing.TAMPERED_BODY) {
      signedBody = java.util.Arrays.copyOf(body, body.length + 1);
      signedBody[body.length] = 'x';
    }
    String signedQuery = s == Signing.TAMPERED_QUERY ? (query == null ? "x=1" : query + "&zz=1") : query;
    String canonical;
    try {
      canonical = RequestSigning.canonicalQuery(signedQuery);
    } catch (IllegalArgumentException duplicateOrMalformed) {
      canonical = signedQuery; // the server refuses it before it checks the signature
    }
    String sig = RequestSigning.hmacSha256Hex(secret, RequestSigning.stringToSign(method, path, canonical, ts, nonce,
        signedBody));
    sig = switch (s) {
      case UPPERCASE -> sig.toUpperCase();
      case SIGNATURE_NOT_HEX -> "z".repeat(64);
      case SIGNATURE_TRUNCATED -> sig.substring(0, 63);
      default -> sig;
    };
    List<String[]> h = new ArrayList<>();
    if (s != Signing.NO_KEY) {
      h.add(new String[] {"X-Ax-Key", key});
    }
    if (s != Signing.NO_TIMESTAMP) {
      h.add(new String[] {"X-Ax-Timestamp", ts});
    }
    if (s != Signing.NO_NONCE) {
      h.add(new String[] {"X-Ax-Nonce", nonce});
    }
    if (s != Signing.NO_SIGNATURE) {
      h.add(new String[] {"X-Ax-Signature", sig});
    }
    return h;
  }

  // ---------------------------------------------------------------------------------------------
  // judging one answer

  /** A task the answer says was created, with what was sent for it. */
  record Created(long id, String op, Map<String, Object> sent, long t0, long t1, boolean fresh) {
  }

  private static List<Created> judge(FuzzCase c, Sent s, RawHttp.Exchange x, Report report, long t0, long t1)
      throws Exception {
    report.require(!x.timedOut(), "no answer within " + ANSWER_TIMEOUT_MS + " ms");
    RawHttp.Response r = x.response();
    if (r == null) {
      // A server may refuse a request before reading its body and close the connection; the client, still
      // sending, can then see a reset instead of the answer. Anything else is a request left unanswered.
      report.require(x.bodyUnsent(), "the connection ended without an answer: " + x.why());
      synchronized (answers) {
        closedWhileSending++;
      }
      return List.of();
    }
    int status = r.status();
    String code = status / 100 == 4 || status / 100 == 5 ? code(r) : null;
    synchronized (answers) {
      answers.merge(status + (code == null ? "" : " " + code), 1, Integer::sum);
    }
    report.require(status != 503 || "overloaded".equals(code) || "service_unavailable".equals(code),
        "503 other than overloaded");
    report.require(status / 100 != 5, "a 5xx answer to a client's request");
    report.require(status / 100 == 2 || status / 100 == 4, "neither a 2xx nor a 4xx");
    boolean head = "HEAD".equals(c.method());
    if (status / 100 == 4 && !head) {
      checkProblem(r, report);
    }
    if (c.operation() != null && !head) {
      Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      r.headers().forEach(h -> headers.putIfAbsent(h[0], h[1]));
      List<String> problems = contract.check(c.operation(), status, headers, r.text());
      if (problems.size() == 1 && problems.get(0).startsWith("status " + status + " is not declared")) {
        synchronized (answers) {
          undeclared.merge(c.operation() + " " + status, 1, Integer::sum);
        }
      }
      // every status is declared on its own (no 4XX ranges), so an undeclared one is a finding too
      report.require(problems.isEmpty(), "outside openapi.yaml: " + String.join("; ", problems));
    }
    Expect e = c.expect();
    switch (e.kind()) {
      case SUCCESS -> report.require(status / 100 == 2, "expected a success: " + e);
      case REFUSED -> {
        report.require(status / 100 == 4, "expected a refusal: " + e);
        report.require(e.status() == 0 || e.status() == status, "expected " + e);
        report.require(e.code() == null || e.code().equals(code), "expected " + e);
      }
      case ANY -> {
      }
    }
    if (status / 100 != 2 || c.operation() == null || !c.path().startsWith("/openapi/")) {
      return List.of();
    }
    JsonObject body = new JsonObject(r.text());
    List<Created> created = new ArrayList<>();
    switch (c.operation()) {
      case "createTask", "runTaskSync" -> {
        long id = Long.parseLong(body.getString("task_id"));
        boolean fresh = !knownSet.contains(id);
        if (c.operation().equals("createTask")) {
          report.require(status == 201 == fresh, status == 201 ? "201 for a task id seen before"
              : "200 duplicate names a task this run never created");
        }
        created.add(new Created(id, c.operation(), sentObject(s.body(), -1, report), t0, t1, fresh));
      }
      case "createTaskBatch" -> {
        JsonArray results = body.getJsonArray("results");
        Object sentDoc = decodeSent(s.body(), report);
        int n = sentDoc instanceof Map<?, ?> m && m.get("tasks") instanceof List<?> l ? l.size() : -1;
        report.require(results.size() == n, "one result per element: " + results.size() + " for " + n);
        // A duplicate may name a task this same batch created at a later index: the fingerprint answer is
        // the earliest equal task less than 5 s away, and an element refused for an older task can find a
        // later element's task there too (CI, seed 2747069763661397708: element 5 refused for a task of an
        // earlier request, element 9 — 4.999 s earlier than 5, 5 s or more from that task — created).
        Set<Long> createdHere = new HashSet<>();
        for (int i = 0; i < results.size(); i++) {
          JsonObject item = results.getJsonObject(i);
          if (item.getInteger("status_code") == 201) {
            createdHere.add(Long.parseLong(item.getString("task_id")));
          }
        }
        for (int i = 0; i < results.size(); i++) {
          JsonObject item = results.getJsonObject(i);
          int itemStatus = item.getInteger("status_code");
          report.require(item.getInteger("index") == i, "results[" + i + "].index");
          report.require(itemStatus / 100 == 2 || itemStatus / 100 == 4, "results[" + i + "] answered " + itemStatus);
          if (i < c.items().size()) {
            Expect ie = c.items().get(i);
            String where = "results[" + i + "] (" + item.encode().substring(0, Math.min(300, item.encode().length()))
                + ")";
            switch (ie.kind()) {
              case SUCCESS -> report.require(itemStatus / 100 == 2, where + " expected a success");
              case REFUSED -> {
                report.require(itemStatus / 100 == 4, where + " expected a refusal: " + ie);
                report.require(ie.status() == 0 || ie.status() == itemStatus, where + " expected " + ie);
                report.require(ie.code() == null || ie.code().equals(item.getJsonObject("error").getString("code")),
                    where + " expected " + ie);
              }
              case ANY -> {
              }
            }
          }
          if (itemStatus / 100 == 2) {
            long id = Long.parseLong(item.getString("task_id"));
            boolean fresh = !knownSet.contains(id) && created.stream().noneMatch(t -> t.id() == id);
            boolean named = knownSet.contains(id) || createdHere.contains(id);
            report.require(itemStatus == 201 ? fresh : named, "results[" + i + "]: " + itemStatus + " but the id was "
                + (itemStatus == 201 ? "seen before" : "never created"));
            if (itemStatus == 201 && fresh) {
              created.add(new Created(id, c.operation(), sentObject(s.body(), i, report), t0, t1, true));
            }
          }
        }
      }
      case "cancelTask" -> cancelled.add(Long.parseLong(body.getString("task_id")));
      case "listTasks" -> {
        String next = body.getString("next_cursor");
        if (next != null && cursors.size() < 1_000) {
          cursors.add(next);
        }
      }
      default -> {
      }
    }
    return created;
  }

  private static String code(RawHttp.Response r) {
    try {
      return new JsonObject(r.text()).getString("code");
    } catch (RuntimeException notJson) {
      return null;
    }
  }

  private static final Set<String> CODES = Set.of("validation_failed", "callback_url_not_allowed",
      "use_async_endpoint", "signature_mismatch", "unknown_key", "timestamp_skew", "nonce_replayed", "not_found",
      "method_not_allowed", "not_cancellable", "request_timeout", "payload_too_large", "uri_too_long",
      "headers_too_large", "unsupported_media_type", "rate_limited");

  private static void checkProblem(RawHttp.Response r, Report report) {
    String type = r.header("content-type");
    report.require(type != null && type.split(";")[0].trim().equals("application/problem+json"),
        "a 4xx must be application/problem+json, was " + type);
    JsonObject p;
    try {
      p = new JsonObject(r.text());
    } catch (RuntimeException e) {
      report.require(false, "a 4xx body that is not a JSON object");
      return;
    }
    for (String member : List.of("type", "title", "status", "detail", "code")) {
      report.require(p.getValue(member) != null, "problem without " + member);
    }
    report.require(Integer.valueOf(r.status()).equals(p.getValue("status")), "problem status differs from the answer's");
    report.require(CODES.contains(p.getString("code")), "problem code " + p.getValue("code") + " is not a 4xx code "
        + "of openapi.yaml");
    report.require(("urn:ax:problem:" + p.getString("code")).equals(p.getString("type")), "problem type is not "
        + "urn:ax:problem:<code>");
  }

  // ---------------------------------------------------------------------------------------------
  // what is stored

  private static long[] counts() throws Exception {
    try (PreparedStatement st = db.prepareStatement("SELECT count(*) FILTER (WHERE parent_id IS NULL), count(*) "
        + "FROM tasks WHERE tenant_id = ?")) {
      st.setString(1, "cluster");
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  private static void checkStored(long[] before, List<Created> created, Report report) throws Exception {
    long[] after = counts();
    long fresh = created.stream().filter(Created::fresh).count();
    report.require(after[0] - before[0] == fresh, "tasks stored: " + (after[0] - before[0]) + ", answers say "
        + fresh + (fresh == 0 ? " (nothing may be stored from a refused request)" : ""));
    long rows = 0;
    for (Created t : created) {
      if (t.fresh()) {
        long shards = shardTotal(t.id());
        rows += 1 + (shards > 1 ? shards : 0);
        remember(t.id());
      }
    }
    report.require(after[1] - before[1] == rows, "rows stored (with shards): " + (after[1] - before[1])
        + ", expected " + rows);
  }

  private static long shardTotal(long id) throws Exception {
    try (PreparedStatement st = db.prepareStatement("SELECT shard_total FROM tasks WHERE task_id = ?")) {
      st.setLong(1, id);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  private static void remember(long id) {
    if (knownSet.add(id)) {
      known.add(id);
    }
  }

  private static Object decodeSent(byte[] body, Report report) {
    try {
      return ExactJson.decodeLastKeyWins(body);
    } catch (Exception e) {
      report.require(false, "a task was stored from a body that is not JSON: " + e.getMessage());
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> sentObject(byte[] body, int index, Report report) {
    Object doc = decodeSent(body, report);
    if (index >= 0 && doc instanceof Map<?, ?> m && m.get("tasks") instanceof List<?> l && index < l.size()) {
      doc = l.get(index);
    }
    report.require(doc instanceof Map, "a task was stored from an element that is not an object: " + doc);
    return (Map<String, Object>) doc;
  }

  /** GET answers the task as it was sent, defaults filled in. */
  private static void readBack(Created t, Report report) throws Exception {
    ApiClient.Reply r = signedGet(TASKS + "/" + t.id(), report);
    report.require(r.status() == 200, "GET of created task " + t.id() + " answered " + r.status() + ": " + r.raw().body());
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    r.raw().headers().map().forEach((k, v) -> headers.put(k, v.get(0)));
    List<String> problems = contract.check("getTask", 200, headers, r.raw().body());
    report.require(problems.isEmpty(), "GET of created task outside openapi.yaml: " + problems);
    if (!t.fresh()) {
      return;
    }
    compare(t, r.body(), r.raw().body(), report);
    JsonObject got = r.body();
    String url = got.getString("callback_url");
    long trigger = Instant.parse(got.getString("trigger_time")).toEpochMilli();
    if (url != null && url.startsWith(receiverBase()) && trigger <= System.currentTimeMillis() + 3_000
        && !"CANCELLED".equals(got.getString("status"))) {
      dueCallbacks.put(t.id(), report.c.what());
    }
  }

  /** A signed GET of this test's own; no answer within 10 s fails the try with the request that led to it. */
  private static ApiClient.Reply signedGet(String pathAndQuery, Report report) {
    try {
      return api.get(pathAndQuery);
    } catch (Exception e) {
      report.require(false, "GET " + pathAndQuery + " (after the request below) got no answer: " + e);
      return null;
    }
  }

  private static String receiverBase() {
    String u = receiver.url();
    return u.substring(0, u.indexOf('/', "http://".length()) + 1);
  }

  /** {@code got} for the members, {@code rawBody} (read exactly, never through doubles) for the payload. */
  private static void compare(Created t, JsonObject got, String rawBody, Report report) throws Exception {
    Map<String, Object> sent = t.sent();
    String what = "task " + t.id() + " as read back: ";
    report.require(ExactJson.same(sent.get("task_type"), got.getValue("task_type")), what + "task_type "
        + got.getValue("task_type"));
    report.require(ExactJson.same(sent.get("callback_url"), got.getValue("callback_url")), what + "callback_url "
        + got.getValue("callback_url"));
    report.require(ExactJson.same(sent.get("processor"), got.getValue("processor")), what + "processor "
        + got.getValue("processor"));
    Map<String, Integer> defaults = new LinkedHashMap<>();
    defaults.put("priority", 5);
    defaults.put("max_retry", 2);
    defaults.put("timeout_ms", t.op().equals("runTaskSync") ? 3000 : 60_000);
    defaults.put("shard_total", 1);
    defaults.forEach((field, fallback) -> {
      Object s = sent.get(field);
      report.require(ExactJson.same(s == null ? BigDecimal.valueOf(fallback) : s, got.getValue(field)),
          what + field + " " + got.getValue(field) + ", sent " + s);
    });
    report.require(ExactJson.same(sent.get("biz_key"), got.getValue("biz_key")), what + "biz_key");
    Object gotPayload = ((Map<?, ?>) ExactJson.decode(rawBody.getBytes(StandardCharsets.UTF_8))).get("payload");
    report.require(ExactJson.same(sent.get("payload"), gotPayload), what + "payload "
        + FuzzRequests.shorten(String.valueOf(gotPayload)) + ", sent "
        + FuzzRequests.shorten(String.valueOf(sent.get("payload"))));
    report.require(ExactJson.same(sent.get("notify_url"), got.getValue("notify_url")), what + "notify_url");
    report.require(new JsonArray().equals(got.getJsonArray("depends_on")), what + "depends_on");
    long trigger = Instant.parse(got.getString("trigger_time")).toEpochMilli();
    Object time = sent.get("trigger_time");
    Object delay = sent.get("delay_ms");
    if (time instanceof String s) {
      long expected = OffsetDateTime.parse(s.toUpperCase(java.util.Locale.ROOT)).toInstant().truncatedTo(ChronoUnit.MILLIS).toEpochMilli();
      report.require(trigger == expected, what + "trigger_time " + got.getString("trigger_time") + ", sent " + s);
    } else {
      long d = delay instanceof BigDecimal b ? b.longValueExact() : 0;
      report.require(trigger >= t.t0() + d - 2_000 && trigger <= t.t1() + d + 2_000, what + "trigger_time "
          + got.getString("trigger_time") + " for delay " + d + " ms sent at " + Instant.ofEpochMilli(t.t0()));
    }
  }

  /** Every created task appears in the list of its task_type, as GET shows it. */
  private static void listed(List<Created> created, Report report) throws Exception {
    Map<String, Set<Long>> byType = new HashMap<>();
    for (Created t : created) {
      if (t.fresh()) {
        byType.computeIfAbsent((String) t.sent().get("task_type"), k -> new HashSet<>()).add(t.id());
      }
    }
    for (Map.Entry<String, Set<Long>> e : byType.entrySet()) {
      Set<Long> missing = new HashSet<>(e.getValue());
      String cursor = null;
      for (int page = 0; page < 40 && !missing.isEmpty(); page++) {
        ApiClient.Reply r = signedGet(TASKS + "?task_type=" + URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
            + "&limit=500" + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)),
            report);
        report.require(r.status() == 200, "listing task_type " + e.getKey() + " answered " + r.status() + ": "
            + r.raw().body());
        for (Object o : r.body().getJsonArray("items")) {
          missing.remove(Long.parseLong(((JsonObject) o).getString("task_id")));
        }
        cursor = r.body().getString("next_cursor");
        if (cursor == null) {
          break;
        }
      }
      report.require(missing.isEmpty(), "created but not listed under task_type " + e.getKey() + ": " + missing);
    }
  }

  /**
   * Dispatched, though the target may never have seen it: with a timeout_ms of a few milliseconds an
   * attempt can end before its request leaves, and every retry likewise, so the task is FAILED for
   * timeouts without a call. That is the scheduler keeping the task's own limit.
   */
  private static boolean timedOutEveryAttempt(long id) {
    try {
      JsonObject t = api.get(TASKS + "/" + id).body();
      return t != null && "FAILED".equals(t.getString("status")) && t.getInteger("timeout_ms") < 100
          && String.valueOf(t.getString("error")).startsWith("no response within timeout_ms");
    } catch (Exception e) {
      return false;
    }
  }

  private static List<String> checkDispatched() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    Map<Long, String> waiting = new HashMap<>(dueCallbacks);
    waiting.keySet().removeAll(cancelled);
    while (System.currentTimeMillis() < deadline) {
      waiting.keySet().removeIf(id -> receiver.calls(id) > 0 || timedOutEveryAttempt(id));
      if (waiting.isEmpty()) {
        break;
      }
      Thread.sleep(200);
    }
    System.out.printf("ApiFuzzIT: %d tasks due with a callback to the test's target, %d not called%n",
        dueCallbacks.size(), waiting.size());
    if (waiting.isEmpty()) {
      return List.of();
    }
    StringBuilder b = new StringBuilder(waiting.size() + " task(s) due within 3 s with a callback to the test's "
        + "target were never called:");
    waiting.entrySet().stream().limit(10).forEach(e -> {
      String state;
      try {
        state = api.get(TASKS + "/" + e.getKey()).raw().body();
      } catch (Exception ex) {
        state = ex.toString();
      }
      b.append("\n  ").append(e.getKey()).append(" from: ").append(e.getValue()).append("\n    now: ").append(state);
    });
    return List.of(b.toString());
  }

  /** Failure messages that show the request and the answer. */
  static final class Report {
    final FuzzCase c;
    final Sent s;
    final RawHttp.Exchange x;

    Report(FuzzCase c, Sent s, RawHttp.Exchange x) {
      this.c = c;
      this.s = s;
      this.x = x;
    }

    void require(boolean ok, String why) {
      if (!ok) {
        throw new AssertionError(why + "\n" + this);
      }
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      b.append("  request: ").append(c.what()).append("\n  expected: ").append(c.expect());
      b.append("\n  ").append(s.request().method()).append(' ').append(FuzzJson.escape(
          s.request().target().getBytes(StandardCharsets.ISO_8859_1), 300));
      for (String[] h : s.request().headers()) {
        b.append("\n  ").append(h[0]).append(": ").append(h[0].startsWith("(") ? h[1] : FuzzRequests.shorten(h[1]));
      }
      b.append("\n  framing: ").append(s.request().framing()).append("\n  body (").append(s.body().length)
          .append(" bytes): ").append(FuzzJson.escape(s.body(), 300));
      if (x.response() == null) {
        b.append("\n  answer: none (").append(x.why()).append(") after ").append(x.millis()).append(" ms");
      } else {
        RawHttp.Response r = x.response();
        b.append("\n  answer: ").append(r.status()).append(" after ").append(x.millis()).append(" ms");
        for (String[] h : r.headers()) {
          b.append("\n    ").append(h[0]).append(": ").append(h[1]);
        }
        String text = r.text();
        b.append("\n    ").append(text.length() > 2_000 ? text.substring(0, 2_000) + "…" : text);
      }
      return b.toString();
    }
  }
}
