package ax.api;

import ax.http.CallbackUrlPolicy;
import ax.testing.ExactJson;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a request body can do to the code that reads it, without a server: for any bytes, any JSON-ish
 * text and any task-shaped object, {@code TaskRequestParser.parse(HttpJson.decode(bytes), now)} either
 * returns a {@link TaskRequestParser.Submission} or throws {@link InvalidRequest} (a 4xx problem) —
 * never another exception, which the server would answer with a 500. A Submission keeps every rule of
 * openapi.yaml: a name of the alphabet, a trigger time within [now - 366 d, now + 10 y], integers in
 * range, exactly one target, and the payload as it was sent (same JSON value, re-encodable, within 64 KiB
 * and 64 levels, storable by PostgreSQL).
 */
class RequestParsingPropertiesTest {
  private static final long NOW = Instant.parse("2026-06-01T00:00:00Z").toEpochMilli();
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private final TaskRequestParser parser = new TaskRequestParser(new CallbackUrlPolicy(List.of("127.0.0.1",
      "hooks.example.com")));

  @Property(tries = 300)
  void anyBytesAreASubmissionOrAnInvalidRequest(@ForAll("bytes") byte[] body) {
    check(body);
  }

  @Property(tries = 300)
  void jsonishTextIsASubmissionOrAnInvalidRequest(@ForAll("jsonish") String body) {
    check(body.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 400)
  void taskShapedObjectsAreASubmissionOrAnInvalidRequest(@ForAll("tasks") String body) {
    check(body.getBytes(StandardCharsets.UTF_8));
  }

  private void check(byte[] bytes) {
    TaskRequestParser.Submission s;
    try {
      s = parser.parse(HttpJson.decode(Buffer.buffer(bytes)), NOW);
    } catch (InvalidRequest e) {
      Problem p = e.problem();
      assertNotNull(p, "an InvalidRequest carries its problem");
      assertTrue(p.status() / 100 == 4, "a refusal is a 4xx: " + p);
      assertNotNull(p.code());
      assertNotNull(p.detail());
      return;
    }
    String body = new String(bytes, StandardCharsets.UTF_8);
    assertTrue(NAME.matcher(s.taskType()).matches(), "task_type " + s.taskType());
    assertTrue(s.triggerTimeMs() >= NOW - TaskRequestParser.MAX_PAST_MS
        && s.triggerTimeMs() <= NOW + TaskRequestParser.MAX_FUTURE_MS, "trigger time " + s.triggerTimeMs());
    assertTrue(s.priority() >= 0 && s.priority() <= 9, "priority " + s.priority());
    assertTrue(s.maxRetry() >= 0 && s.maxRetry() <= 10, "max_retry " + s.maxRetry());
    assertTrue(s.timeoutMs() >= 1 && s.timeoutMs() <= 86_400_000, "timeout_ms " + s.timeoutMs());
    assertTrue(s.shardTotal() >= 1 && s.shardTotal() <= 1024, "shard_total " + s.shardTotal());
    assertTrue(s.shardTotal() == 1 || s.processor() != null, "only processor tasks are sharded");
    assertTrue((s.callbackUrl() == null) != (s.processor() == null), "exactly one target");
    if (s.processor() != null) {
      assertTrue(NAME.matcher(s.processor()).matches(), "processor " + s.processor());
    }
    if (s.bizKey() != null) {
      assertTrue(!s.bizKey().isEmpty() && s.bizKey().codePointCount(0, s.bizKey().length()) <= 128, "biz_key");
      assertTrue(storable(s.bizKey()), "biz_key PostgreSQL cannot store");
    }
    Object sent;
    try {
      sent = ExactJson.decode(bytes);
    } catch (Exception e) {
      fail("a Submission from a body that is not exactly one JSON object (" + e.getMessage() + "): " + shorten(body));
      return;
    }
    Map<?, ?> fields = (Map<?, ?>) sent;
    // the values kept are exactly the values sent (a number that is not whole is not rounded into range)
    Map<String, Long> kept = Map.of("priority", (long) s.priority(), "max_retry", (long) s.maxRetry(),
        "timeout_ms", (long) s.timeoutMs(), "shard_total", (long) s.shardTotal());
    kept.forEach((field, value) -> {
      if (fields.get(field) != null) {
        assertTrue(ExactJson.same(fields.get(field), value), field + " sent as " + fields.get(field) + ", kept as "
            + value + ": " + shorten(body));
      }
    });
    if (fields.get("delay_ms") != null) {
      assertTrue(ExactJson.same(fields.get("delay_ms"), s.triggerTimeMs() - NOW), "delay_ms sent as "
          + fields.get("delay_ms") + ", kept as " + (s.triggerTimeMs() - NOW) + " ms: " + shorten(body));
    }
    if (fields.get("trigger_time") instanceof String t) {
      assertEquals(java.time.OffsetDateTime.parse(t).toInstant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
          .toEpochMilli(), s.triggerTimeMs(), "trigger_time");
    }
    if (s.payloadJson() == null) {
      assertTrue(fields.get("payload") == null, "the payload was dropped");
      return;
    }
    byte[] payload = s.payloadJson().getBytes(StandardCharsets.UTF_8);
    assertTrue(payload.length <= TaskRequestParser.MAX_PAYLOAD_BYTES, "payload of " + payload.length + " bytes");
    Object again;
    try {
      again = ExactJson.decode(payload);
    } catch (Exception e) {
      fail("the payload does not re-encode as JSON: " + s.payloadJson());
      return;
    }
    assertTrue(JsonLimits.depth(Json.decodeValue(s.payloadJson())) <= JsonLimits.MAX_PAYLOAD_DEPTH, "payload depth");
    assertTrue(storable(s.payloadJson()), "payload PostgreSQL cannot store");
    assertTrue(ExactJson.same(fields.get("payload"), again), "the payload changed: sent "
        + shorten(String.valueOf(fields.get("payload"))) + ", kept " + shorten(s.payloadJson()));
  }

  private static boolean storable(String text) {
    if (text.indexOf('\u0000') >= 0 || text.contains("\\u0000")) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(++i)))) {
        return false;
      }
      if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static String shorten(String s) {
    return s.length() > 120 ? s.substring(0, 120) + "…" : s;
  }

  // ---------------------------------------------------------------------------------------------

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.bytes().array(byte[].class).ofMaxSize(300)),
        Tuple.of(2, tasks().map(t -> t.getBytes(StandardCharsets.UTF_8)).flatMap(b -> Combinators.combine(
            Arbitraries.integers().between(0, Math.max(0, b.length - 1)), Arbitraries.bytes()).as((at, x) -> {
              byte[] c = b.clone();
              if (c.length > 0) {
                c[at] = x; // one byte changed: often no longer UTF-8 or no longer JSON
              }
              return c;
            }))));
  }

  private static final List<String> TOKENS = List.of("{", "}", "[", "]", ",", ":", "\"task_type\"",
      "\"callback_url\"", "\"processor\"", "\"payload\"", "\"delay_ms\"", "\"trigger_time\"", "\"priority\"",
      "\"fz.a\"", "\"http://127.0.0.1/x\"", "\"p\"", "0", "-1", "1e400", "18446744073709551621", "1.5", "null", "true",
      "\"\\u0000\"", "\"\\ud800\"", "\"\u00e9\"", " ", "\"2026-06-01T00:00:05Z\"", "\"x\"", "\"", "\\", "01", "-");

  @Provide
  Arbitrary<String> jsonish() {
    return Arbitraries.of(TOKENS).list().ofMaxSize(40).map(ts -> String.join("", ts));
  }

  private static final Map<String, List<String>> VALUES = Map.ofEntries(
      Map.entry("task_type", List.of("\"fz.a\"", "\"\"", "1", "null", "\"a b\"", "\"" + "a".repeat(128) + "\"",
          "\"" + "a".repeat(129) + "\"", "\"\\u0000\"", "\"é\"", "[\"fz\"]")),
      Map.entry("trigger_time", List.of("\"2026-06-01T00:00:05Z\"", "\"2026-06-01T00:00:05.123456789+02:00\"",
          "\"2025-06-01T00:00:00Z\"", "\"2025-05-30T00:00:00Z\"", "\"2036-05-01T00:00:00Z\"", "\"2036-07-01T00:00:00Z\"",
          "\"+999999999-12-31T23:59:59Z\"", "\"-999999999-01-01T00:00:00Z\"", "\"-5000-01-01T00:00:00Z\"",
          "\"0000-01-01T00:00:00Z\"", "\"2026-06-01T00:00:60Z\"", "\"2026-06-01\"", "\"x\"", "5", "null")),
      Map.entry("delay_ms", List.of("0", "1000", "316224000000", "316224000001", "-1", "1.5", "1e400", "-0",
          "18446744073709551621", "\"5\"", "null", "1e10", "5.00000000000000000001")),
      Map.entry("payload", List.of("{\"a\":1}", "[1,2]", "\"s\"", "1", "null", "true", "1e400", "-1e400", "1e-400",
          "0.1000000000000000000001", "18446744073709551621", "{\"a\":\"\\u0000\"}", "{\"\\ud800\":1}",
          "[".repeat(64) + "]".repeat(64), "[".repeat(65) + "]".repeat(65), "[".repeat(72) + "]".repeat(72),
          "\"" + "x".repeat(65_534) + "\"", "\"" + "x".repeat(65_535) + "\"", "\"\u00e9\\u2028\"", "-0", "1E+2")),
      Map.entry("callback_url", List.of("\"http://127.0.0.1/x\"", "\"https://hooks.example.com/a\"",
          "\"http://10.0.0.1/\"", "\"ftp://127.0.0.1/\"", "\"http://127.0.0.1/a b\"", "\"http://127.0.0.1/%zz\"",
          "\"http://127.0.0.1:0/\"", "\"http://127.0.0.1:99999999999/\"", "\"http://[::1]/\"", "\"\"", "1", "null",
          "\"http://127.0.0.1/\\u2028\"", "\"http://127.0.0.1/é\"")),
      Map.entry("processor", List.of("\"p\"", "\"\"", "\"a b\"", "null", "1", "\"" + "p".repeat(129) + "\"")),
      Map.entry("max_retry", List.of("0", "10", "11", "-1", "2.0", "2.5", "1e400", "null", "\"2\"", "-0.0")),
      Map.entry("priority", List.of("0", "9", "10", "-0", "5.0", "5.00000000000000000001", "1e-400", "null", "true")),
      Map.entry("timeout_ms", List.of("1", "0", "86400000", "86400001", "2147483648", "9223372036854775808", "1e2",
          "null")),
      Map.entry("shard_total", List.of("1", "2", "1024", "1025", "0", "null", "1.0")),
      Map.entry("biz_key", List.of("\"k\"", "\"\"", "\"" + "k".repeat(128) + "\"", "\"" + "k".repeat(129) + "\"",
          "null", "1", "\"\\udc00\"", "\"" + "\uD83D\uDE00".repeat(64) + "\"")),
      Map.entry("notify_url", List.of("\"http://127.0.0.1/n\"", "null")),
      Map.entry("depends_on", List.of("[]", "[\"1\"]", "null")),
      Map.entry("colour", List.of("1")));

  /** Objects made of the task's members (each maybe twice), with values valid and not. */
  @Provide
  Arbitrary<String> tasks() {
    List<String> names = new ArrayList<>(VALUES.keySet());
    Arbitrary<String> member = Arbitraries.of(names).flatMap(name -> Arbitraries.of(VALUES.get(name))
        .map(v -> "\"" + name + "\":" + v));
    Arbitrary<String> base = Arbitraries.of("\"task_type\":\"fz.a\",\"callback_url\":\"http://127.0.0.1/x\"",
        "\"task_type\":\"fz.a\",\"processor\":\"p\"", "\"task_type\":\"fz.a\"");
    Arbitrary<String> payload = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just("")),
        Tuple.of(1, Arbitraries.of(VALUES.get("payload")).map(v -> "\"payload\":" + v)));
    return Combinators.combine(base, payload, member.list().ofMaxSize(4)).as((b, p, ms) -> {
      StringBuilder s = new StringBuilder("{").append(b);
      if (!p.isEmpty()) {
        s.append(',').append(p);
      }
      for (String m : ms) {
        s.append(',').append(m);
      }
      return s.append('}').toString();
    });
  }

  @Property(tries = 50)
  void aValidTaskIsASubmission(@ForAll("valid") String body) throws InvalidRequest {
    TaskRequestParser.Submission s = parser.parse(HttpJson.decode(Buffer.buffer(body)), NOW);
    assertEquals(new JsonObject(body).getString("task_type"), s.taskType(), "the generator makes valid tasks");
    check(body.getBytes(StandardCharsets.UTF_8));
  }

  @Provide
  Arbitrary<String> valid() {
    return Combinators.combine(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20),
            Arbitraries.longs().between(0, 365L * 86_400_000), Arbitraries.integers().between(0, 9),
            Arbitraries.strings().withCharRange((char) 1, (char) 0xD7FF).ofMaxLength(30))
        .as((type, delay, priority, text) -> new JsonObject().put("task_type", type)
            .put("callback_url", "https://hooks.example.com/x").put("delay_ms", delay).put("priority", priority)
            .put("payload", new JsonObject().put("text", text).put("n", delay)).encode());
  }
}
