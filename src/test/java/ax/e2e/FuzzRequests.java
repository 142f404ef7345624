package ax.e2e;

import ax.e2e.FuzzCase.Body;
import ax.e2e.FuzzCase.Expect;
import ax.e2e.FuzzCase.Signing;
import ax.e2e.FuzzJson.Arr;
import ax.e2e.FuzzJson.Deep;
import ax.e2e.FuzzJson.J;
import ax.e2e.FuzzJson.Lit;
import ax.e2e.FuzzJson.Member;
import ax.e2e.FuzzJson.Obj;
import ax.e2e.FuzzJson.RawStr;
import ax.e2e.FuzzJson.Repeat;
import ax.e2e.FuzzJson.Str;
import ax.e2e.FuzzJson.Time;
import ax.signing.RequestSigning;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import static ax.e2e.FuzzJson.num;
import static ax.e2e.FuzzJson.obj;
import static ax.e2e.FuzzJson.str;

/**
 * Requests derived from openapi.yaml: for each operation a valid request (task bodies that call the
 * test's HTTP target or name a processor, batches of 1–20, list queries, ids this run created), then
 * mutations of its fields (wrong JSON types, missing and unknown members, extreme numbers and dates,
 * deep nesting, NUL, lone surrogates and bytes that are not UTF-8, keys twice, payloads at and over
 * their limit) and of the request around them (signing, Content-Type, chunked and lying framing,
 * bodies at and over the endpoint's limit, repeated query parameters and headers, other methods).
 * Each mutation says what the contract makes of it ({@link Expect}); where the contract leaves it
 * open, either answer is allowed — but never a 5xx.
 */
final class FuzzRequests {
  static final String TASKS = "/openapi/v1/tasks";
  static final long DAY = 86_400_000L;
  static final int SINGLE_LIMIT = 96 * 1024;
  static final int BATCH_LIMIT = 8 * 1024 * 1024;
  static final int NO_BODY_LIMIT = 1024;
  /** Task types that several requests share, so that list queries find pages of tasks. */
  static final List<String> SHARED_TYPES = List.of("fz.shared.a", "fz.shared.b", "fz.shared:c");

  private static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private final String receiverUrl;

  FuzzRequests(String receiverUrl) {
    this.receiverUrl = receiverUrl;
  }

  /** Every kind of request, with request-level mutations on top. */
  Arbitrary<FuzzCase> all() {
    Arbitrary<FuzzCase> base = Arbitraries.frequencyOf(
        Tuple.of(30, createTask()),
        Tuple.of(14, batch()),
        Tuple.of(6, sync()),
        Tuple.of(12, byId()),
        Tuple.of(10, list()),
        Tuple.of(4, operations()),
        Tuple.of(3, strayRoutes()));
    return base.flatMap(this::requestLevel).flatMap(this::requestLevel);
  }

  // ---------------------------------------------------------------------------------------------
  // Task bodies

  enum Kind { HTTP, PROCESSOR, SYNC }

  /** How far a body-level flaw reaches: NONE (the element alone is refused), ALWAYS / MAYBE the whole body. */
  enum Whole { NONE, MAYBE, ALWAYS }

  /**
   * One task body and what becomes of it.
   *
   * @param payloadDepth nesting of the payload (a batch adds two levels around it)
   */
  record Task(Obj doc, Expect expect, Whole whole, int payloadDepth, String what) {
    Whole wholeIn(int wrapperDepth) {
      return payloadDepth + wrapperDepth + 1 > 72 ? Whole.ALWAYS : whole;
    }
  }

  /** A change to a task body; {@code group} keeps two mutations off one field. */
  record Mut(String group, String what, UnaryOperator<Obj> apply, Expect expect, Whole whole, int payloadDepth) {
    static Mut of(String group, String what, UnaryOperator<Obj> apply, Expect expect) {
      return new Mut(group, what, apply, expect, Whole.NONE, 0);
    }

    @Override
    public String toString() {
      return what;
    }
  }

  Arbitrary<Task> task(Kind k, int maxMutations) {
    Arbitrary<List<Mut>> muts = mutation(k).list().ofMaxSize(maxMutations).uniqueElements(Mut::group);
    return Combinators.combine(validTask(k), muts).as((base, ms) -> {
      Obj doc = base;
      Expect e = Expect.ok();
      Whole whole = Whole.NONE;
      int depth = 0;
      List<Mut> ordered = new ArrayList<>(ms);
      ordered.sort(Comparator.comparing(m -> m.group().startsWith("dup:")));
      StringBuilder what = new StringBuilder(k.name().toLowerCase());
      for (Mut m : ordered) {
        doc = m.apply().apply(doc);
        e = e.and(m.expect());
        whole = whole.ordinal() >= m.whole().ordinal() ? whole : m.whole();
        depth = Math.max(depth, m.payloadDepth());
        what.append(", ").append(m.what());
      }
      return new Task(doc, e, whole, depth, what.toString());
    });
  }

  /** A valid task body of this kind, with a random selection of its optional members. */
  Arbitrary<Obj> validTask(Kind k) {
    List<Arbitrary<UnaryOperator<Obj>>> parts = new ArrayList<>();
    parts.add(taskTypes().map(t -> o -> o.put("task_type", str(t))));
    if (k == Kind.HTTP) {
      parts.add(Arbitraries.of(receiverUrl, receiverUrl, receiverUrl + "?q=1", receiverUrl + "/deeper")
          .map(u -> o -> o.put("callback_url", str(u))));
    } else {
      parts.add(Arbitraries.strings().withCharRange('a', 'z').withChars("._:-0123456789").ofMinLength(1)
          .ofMaxLength(12).map(p -> o -> o.put("processor", str("p" + p))));
    }
    if (k == Kind.SYNC) {
      parts.add(Arbitraries.integers().between(1, 40).map(t -> o -> o.put("timeout_ms", num(t))));
    } else {
      parts.add(maybe(validTime()));
      parts.add(maybe(Arbitraries.integers().between(1, 86_400_000).map(t -> o -> o.put("timeout_ms", num(t)))));
    }
    parts.add(maybe(payloads(3).map(p -> o -> o.put("payload", p))));
    parts.add(maybe(Arbitraries.integers().between(0, 9).map(p -> o -> o.put("priority", num(p)))));
    parts.add(maybe(Arbitraries.integers().between(0, 10).map(p -> o -> o.put("max_retry", num(p)))));
    parts.add(maybe(bizKeys().map(b -> o -> o.put("biz_key", str(b)))));
    if (k != Kind.HTTP) {
      parts.add(maybe(Arbitraries.frequency(Tuple.of(20, 1), Tuple.of(20, 2), Tuple.of(10, 5), Tuple.of(1, 1024))
          .map(n -> o -> o.put("shard_total", num(n)))));
    }
    return Combinators.combine(parts).as(fs -> {
      Obj o = obj();
      for (UnaryOperator<Obj> f : fs) {
        o = f.apply(o);
      }
      return o;
    });
  }

  private static Arbitrary<UnaryOperator<Obj>> maybe(Arbitrary<UnaryOperator<Obj>> part) {
    return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(UnaryOperator.identity())), Tuple.of(1, part));
  }

  Arbitrary<String> taskTypes() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.strings().withCharRange('a', 'z').withChars("0123456789").ofLength(10).map(s -> "fz." + s)),
        Tuple.of(2, Arbitraries.of(SHARED_TYPES)),
        Tuple.of(1, Arbitraries.strings().withCharRange('A', 'Z').withCharRange('a', 'z').withCharRange('0', '9')
            .withChars("._:-").ofMinLength(1).ofMaxLength(128)));
  }

  Arbitrary<String> bizKeys() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.strings().alpha().numeric().ofLength(16).map(s -> "bk-" + s)),
        Tuple.of(2, Arbitraries.of("dup-1", "dup-2", "dup-3")),
        Tuple.of(1, Arbitraries.strings().withCharRange((char) 1, (char) 0xD7FF).withCharRange((char) 0xE000,
            (char) 0xFFFD).ofMinLength(1).ofMaxLength(128)));
  }

  /** trigger_time or delay_ms, valid: mostly due within 3 s (so the task runs in this test), else any time allowed. */
  Arbitrary<UnaryOperator<Obj>> validTime() {
    Arbitrary<Long> offset = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.longs().between(-5_000, 3_000)),
        Tuple.of(2, Arbitraries.longs().between(-365 * DAY, -3_600_000)),
        Tuple.of(2, Arbitraries.longs().between(3_600_000, 3_659 * DAY)));
    Arbitrary<UnaryOperator<Obj>> time = Combinators.combine(offset,
            Arbitraries.integers().between(0, FuzzJson.VALID_TIME_FORMATS - 1))
        .as((off, f) -> o -> o.without("delay_ms").put("trigger_time", new Time(off, f)));
    Arbitrary<UnaryOperator<Obj>> delay = Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.longs().between(0, 3_000)),
            Tuple.of(1, Arbitraries.longs().between(0, 365 * DAY)))
        .map(d -> o -> o.without("trigger_time").put("delay_ms", num(d)));
    return Arbitraries.oneOf(time, delay);
  }

  /** Any JSON value whose numbers survive a double (so a correct server keeps it exactly). */
  Arbitrary<J> payloads(int depth) {
    Arbitrary<J> scalar = Arbitraries.oneOf(
        Arbitraries.strings().withCharRange((char) 1, (char) 0xD7FF).withCharRange((char) 0xE000, (char) 0xFFFD)
            .ofMaxLength(40).map(FuzzJson::str),
        Arbitraries.of("\uD83D\uDE00", "é", "\u202E", "\uFEFF", "\u2028", "\\", "\"", "/", "\uFFFD").list().ofMaxSize(8)
            .map(l -> str(String.join("", l))),
        Arbitraries.longs().map(FuzzJson::num),
        Arbitraries.doubles().between(-1e12, 1e12).filter(Double::isFinite).map(d -> num(Double.toString(d))),
        Arbitraries.of("true", "false", "null", "0", "-1", "1.5", "1e3", "-2.5E-3").map(Lit::new));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<J> inner = payloads(depth - 1);
    Arbitrary<J> array = inner.list().ofMaxSize(4).map(l -> (J) new Arr(l));
    Arbitrary<J> object = Combinators.combine(
            Arbitraries.strings().withCharRange((char) 1, (char) 0xD7FF).ofMaxLength(12).list().ofMaxSize(4)
                .uniqueElements(),
            inner.list().ofSize(4))
        .as((keys, values) -> {
          List<Member> m = new ArrayList<>();
          for (int i = 0; i < keys.size(); i++) {
            m.add(new Member(str(keys.get(i)), values.get(i)));
          }
          return (J) new Obj(m);
        });
    return Arbitraries.frequencyOf(Tuple.of(3, scalar), Tuple.of(1, array), Tuple.of(1, object));
  }

  // ---------------------------------------------------------------------------------------------
  // Mutations of a task body

  static final List<String> STRING_FIELDS = List.of("task_type", "trigger_time", "callback_url", "processor",
      "biz_key");
  static final List<String> INT_FIELDS = List.of("delay_ms", "max_retry", "priority", "timeout_ms", "shard_total");

  Arbitrary<Mut> mutation(Kind k) {
    return Arbitraries.frequencyOf(
        Tuple.of(4, wrongType(k)),
        Tuple.of(2, missing(k)),
        Tuple.of(2, unknownMember(k)),
        Tuple.of(5, numbers(k)),
        Tuple.of(4, times(k)),
        Tuple.of(5, strings(k)),
        Tuple.of(2, duplicateKey()),
        Tuple.of(2, deepPayload()),
        Tuple.of(1, payloadSize()),
        Tuple.of(2, payloadNumbers()),
        Tuple.of(k == Kind.HTTP ? 3 : 0, callbackUrls()),
        Tuple.of(2, names(k)),
        Tuple.of(1, webhookAndDependencies()),
        Tuple.of(1, bizKeyLengths()));
  }

  Arbitrary<Mut> wrongType(Kind k) {
    Arbitrary<String> fields = Arbitraries.of("task_type", "trigger_time", "delay_ms", "payload", "callback_url",
        "processor", "max_retry", "priority", "timeout_ms", "biz_key", "notify_url", "shard_total", "depends_on");
    return fields.flatMap(field -> {
      List<String> values = INT_FIELDS.contains(field)
          ? new ArrayList<>(List.of("\"5\"", "\"\"", "true", "null", "{}", "[]", "[5]", "{\"n\":5}", "\"1e2\""))
          : new ArrayList<>(List.of("12", "1.5", "true", "false", "null", "{}", "[]", "[\"x\"]", "{\"a\":\"b\"}"));
      if (k == Kind.SYNC && field.equals("timeout_ms")) {
        values.remove("null"); // would wait the default 3 s for nothing
      }
      return Arbitraries.of(values).map(v -> Mut.of(group(field), field + " = " + v,
          o -> o.put(field, new Lit(v)), wrongTypeVerdict(k, field, v)));
    });
  }

  private static Expect wrongTypeVerdict(Kind k, String field, String v) {
    String why = field + " = " + v;
    if (field.equals("depends_on") && v.equals("null")) {
      return Expect.ok(); // openapi.yaml: null is no dependencies, as if left out
    }
    if (k == Kind.SYNC && List.of("trigger_time", "delay_ms", "depends_on", "callback_url").contains(field)) {
      return Expect.refused(400, "validation_failed", why + " (not on the sync endpoint)");
    }
    if (field.equals("payload")) {
      return Expect.ok();
    }
    if (field.equals("notify_url")) {
      return Expect.refused(400, "validation_failed", why + " (not a URL string)");
    }
    if (field.equals("depends_on")) {
      return Expect.refused(400, "validation_failed", why + " (not a list of parents)");
    }
    if (v.equals("null")) {
      boolean target = k == Kind.HTTP ? field.equals("callback_url") : field.equals("processor");
      if (field.equals("task_type") || target) {
        return Expect.refused(400, "validation_failed", why + " (required)");
      }
      if (field.equals("trigger_time") || field.equals("delay_ms")) {
        return Expect.refused(400, "validation_failed", why);
      }
      // openapi.yaml types these members without null; the server takes null as "absent"
      return Expect.any(why + " (null taken as absent)");
    }
    return Expect.refused(400, "validation_failed", why);
  }

  Arbitrary<Mut> missing(Kind k) {
    List<String> fields = new ArrayList<>(List.of("task_type", "target", "payload", "priority", "max_retry", "biz_key",
        "trigger_time", "delay_ms"));
    if (k != Kind.SYNC) {
      fields.add("timeout_ms");
    }
    return Arbitraries.of(fields).map(f -> {
      boolean required = f.equals("task_type") || f.equals("target");
      String field = f.equals("target") ? (k == Kind.HTTP ? "callback_url" : "processor") : f;
      return Mut.of(group(field), "no " + field, o -> o.without(field),
          required ? Expect.refused(400, "validation_failed", "no " + field) : Expect.ok());
    });
  }

  /** trigger_time and delay_ms are one group: a mutation of one removes the other. */
  private static String group(String field) {
    return field.equals("delay_ms") ? "trigger_time" : field;
  }

  Arbitrary<Mut> unknownMember(Kind k) {
    return Arbitraries.of("colour", "Task_Type", "task_type ", "", "é", "__proto__", "constructor", "dedupe",
            "schedule_id", "x".repeat(300))
        .map(key -> Mut.of("extra", "unknown member '" + shorten(key) + "'", o -> o.with(key, num(1)),
            Expect.refused(400, "validation_failed", "unknown member")));
  }

  static final List<String> NUMBERS = List.of("0", "-0", "1", "-1", "2", "9", "10", "11", "100", "1024", "1025",
      "3000", "3001", "86400000", "86400001", "316224000000", "316224000001", "2147483647", "2147483648",
      "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551621",
      "1.5", "1.0", "5.0", "-0.0", "0.0", "1e2", "1E0", "0e5", "1e400", "-1e400", "1e-400",
      "5.00000000000000000001", "4.99999999999999999999", "9".repeat(999), "1" + "0".repeat(400), "9".repeat(1500),
      "01", "+1", ".5", "1.", "NaN", "Infinity", "-Infinity", "0x10", "1_000", "1e", "--1");

  Arbitrary<Mut> numbers(Kind k) {
    Arbitrary<String> fields = Arbitraries.of(INT_FIELDS);
    return Combinators.combine(fields, Arbitraries.of(NUMBERS)).as((field, lit) -> {
      long[] range = switch (field) {
        case "priority" -> new long[] {0, 9};
        case "max_retry" -> new long[] {0, 10};
        case "timeout_ms" -> new long[] {1, k == Kind.SYNC ? 3000 : 86_400_000};
        case "shard_total" -> new long[] {1, k == Kind.HTTP ? 1 : 1024};
        default -> new long[] {0, 316_224_000_000L}; // delay_ms, openapi.yaml's maximum (3 660 days)
      };
      String what = field + " = " + shorten(lit);
      UnaryOperator<Obj> apply = field.equals("delay_ms")
          ? o -> o.without("trigger_time").put("delay_ms", new Lit(lit))
          : o -> o.put(field, new Lit(lit));
      String group = field.equals("delay_ms") ? "trigger_time" : field;
      if (!JSON_NUMBER.matcher(lit).matches()) {
        return new Mut(group, what, apply, Expect.refused(400, "validation_failed", what + " is not JSON"),
            Whole.ALWAYS, 0);
      }
      if (lit.length() > 1000) {
        // beyond the JSON parser's number length: refused, as the whole body or as this task
        return new Mut(group, what, apply, Expect.refused(400, "validation_failed", "number of " + lit.length()
            + " digits"), Whole.MAYBE, 0);
      }
      if (k == Kind.SYNC && field.equals("delay_ms")) {
        return Mut.of(group, what, apply, Expect.refused(400, "validation_failed", "delay_ms on sync"));
      }
      BigDecimal v = new BigDecimal(lit);
      boolean whole = v.signum() == 0 || v.stripTrailingZeros().scale() <= 0;
      boolean inRange = v.compareTo(BigDecimal.valueOf(range[0])) >= 0 && v.compareTo(BigDecimal.valueOf(range[1])) <= 0;
      if (whole && inRange) {
        if (k == Kind.SYNC && field.equals("timeout_ms") && v.longValue() > 100) {
          apply = o -> o.put(field, num(99)); // a sync task waits its timeout: keep the run fast
          what = field + " = 99";
        }
        return Mut.of(group, what, apply, Expect.ok());
      }
      if (k == Kind.SYNC && field.equals("timeout_ms") && v.compareTo(BigDecimal.valueOf(3000)) > 0
          && v.compareTo(BigDecimal.valueOf(86_400_000)) <= 0) {
        // beyond 86 400 000 the router's schema validation (runTaskSync is validated by schema) answers first
        return Mut.of(group, what, apply, Expect.refused(400, "use_async_endpoint", what));
      }
      return Mut.of(group, what, apply, Expect.refused(400, "validation_failed", what + (whole ? " out of range"
          : " not a whole number")));
    });
  }

  static final List<String> BAD_TIMES = List.of("-5000-01-01T00:00:00Z", "-4713-11-24T00:00:00Z",
      "0000-01-01T00:00:00Z", "+999999999-12-31T23:59:59.999Z", "-999999999-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "2016-12-31T23:59:60Z", "2026-02-30T00:00:00Z",
      "2025-13-01T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01", "", "now", "1764460800000",
      " 2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000+24:00", "2026-01-01T25:00:00Z", "2026-01-01T00:00:00.000ZZ",
      "+10000-01-01T00:00:00Z", "2026-W01-1T00:00:00Z", "2026-001T00:00:00Z", "T", "\u0660\u0660-01-01T00:00:00Z");

  Arbitrary<Mut> times(Kind k) {
    Expect onSync = Expect.refused(400, "validation_failed", "a time on the sync endpoint");
    Arbitrary<Mut> inRange = Combinators.combine(Arbitraries.oneOf(
            Arbitraries.longs().between(-365 * DAY, 3_659 * DAY), Arbitraries.longs().between(-5_000, 3_000)),
        Arbitraries.integers().between(0, FuzzJson.VALID_TIME_FORMATS - 1)).as((off, f) ->
        Mut.of("trigger_time", "trigger_time now" + (off >= 0 ? "+" : "") + off + "ms (" + FuzzJson.TIME_FORMATS.get(f)
            + ")", o -> o.without("delay_ms").put("trigger_time", new Time(off, f)), k == Kind.SYNC ? onSync : Expect.ok()));
    Arbitrary<Mut> outOfRange = Arbitraries.oneOf(Arbitraries.longs().between(-36_500 * DAY, -367 * DAY),
            Arbitraries.longs().between(3_661 * DAY, 36_500 * DAY))
        .map(off -> Mut.of("trigger_time", "trigger_time now+" + off / DAY + "d",
            o -> o.without("delay_ms").put("trigger_time", new Time(off, 0)),
            Expect.refused(400, "validation_failed", "trigger_time out of range")));
    Arbitrary<Mut> bad = Arbitraries.of(BAD_TIMES).map(t -> Mut.of("trigger_time", "trigger_time '" + t + "'",
        o -> o.without("delay_ms").put("trigger_time", str(t)), Expect.refused(400, "validation_failed", "bad time")));
    Arbitrary<Mut> lowercase = Arbitraries.longs().between(-5_000, 3_000).map(off -> Mut.of("trigger_time",
        "trigger_time in lower case", o -> o.without("delay_ms").put("trigger_time", new Time(off, 7)),
        k == Kind.SYNC ? onSync : Expect.any("RFC 3339 allows t and z; Java's parser does not")));
    Arbitrary<Mut> both = Arbitraries.just(Mut.of("trigger_time", "trigger_time and delay_ms",
        o -> o.put("trigger_time", new Time(0, 0)).put("delay_ms", num(10)),
        Expect.refused(400, "validation_failed", "both times")));
    return Arbitraries.frequencyOf(Tuple.of(3, inRange), Tuple.of(2, outOfRange), Tuple.of(4, bad),
        Tuple.of(1, lowercase), Tuple.of(1, both));
  }

  /** Byte sequences that are not UTF-8 (RFC 3629), in a string. */
  static final List<byte[]> NOT_UTF8 = List.of(
      new byte[] {(byte) 0xC3, 0x28}, new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xFE, (byte) 0xFF},
      new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xC1, (byte) 0xBF},
      new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0xBD, (byte) 0xED, (byte) 0xB8, (byte) 0x80},
      new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
      new byte[] {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      new byte[] {(byte) 0xE2, (byte) 0x82}, new byte[] {(byte) 0x80});

  Arbitrary<Mut> strings(Kind k) {
    List<String> targets = new ArrayList<>(List.of("task_type", "biz_key", "payload", "payload-key", "key"));
    if (k == Kind.HTTP) {
      targets.add("callback_url");
    } else {
      targets.add("processor");
    }
    Arbitrary<String> bad = Arbitraries.of("\u0000", "a\u0000b", "\uD800", "\uDC00", "x\uDBFF", "\uDC00\uD800");
    Arbitrary<String> unusual = Arbitraries.of("\uD83D\uDE00", "\uFFFF", "\uFEFF", "é", "\u202E", "e\u0301",
        "\u2028", "\u007F", "\\", "\"", "/");
    return Arbitraries.of(targets).flatMap(target -> Arbitraries.frequencyOf(
        // text the store cannot hold is a flaw of its place: in a batch only its element is refused
        Tuple.of(2, bad.map(s -> stringMut(k, target, str(decorate(target, s)), "NUL or lone surrogate "
            + escapeJava(s), Whole.NONE))),
        // bytes that are not JSON text refuse the whole body
        Tuple.of(2, Arbitraries.of(NOT_UTF8).map(b -> stringMut(k, target, rawStr(decorate(target, ""), b),
            "bytes not UTF-8 " + FuzzJson.escape(b, 20), Whole.ALWAYS))),
        Tuple.of(1, Arbitraries.of("\u0001", "\n", "\u001F", "\t").map(c -> stringMut(k, target,
            rawStr(decorate(target, ""), c.getBytes(StandardCharsets.UTF_8)), "raw control character "
            + escapeJava(c), Whole.ALWAYS))),
        Tuple.of(2, unusual.map(s -> stringMut(k, target, str(decorate(target, s)), "unusual character "
            + escapeJava(s), null)))));
  }

  private String decorate(String target, String s) {
    return switch (target) {
      case "task_type" -> "fz." + s;
      case "processor" -> "p" + s;
      case "biz_key" -> "bk-" + s;
      case "callback_url" -> receiverUrl + "/" + s;
      default -> s;
    };
  }

  private static J rawStr(String prefix, byte[] bytes) {
    byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[p.length + bytes.length + 1];
    System.arraycopy(p, 0, all, 0, p.length);
    System.arraycopy(bytes, 0, all, p.length, bytes.length);
    all[all.length - 1] = 'z';
    return new RawStr(all);
  }

  /** {@code invalid}: how a refusal of the text reaches a batch; null when the text is valid. */
  private Mut stringMut(Kind k, String target, J value, String what, Whole invalid) {
    String w = target + ": " + what;
    Expect refusedText = Expect.refused(400, "validation_failed", w);
    if (invalid != null) {
      UnaryOperator<Obj> apply = switch (target) {
        case "payload" -> o -> o.put("payload", new Obj(List.of(new Member(str("s"), value))));
        case "payload-key" -> o -> o.put("payload", new Obj(List.of(new Member(value, num(1)))));
        case "key" -> o -> new Obj(append(o.members(), new Member(value, num(1))));
        default -> o -> o.put(target, value);
      };
      return new Mut(target.startsWith("payload") ? "payload" : target, w, apply, refusedText, invalid, 0);
    }
    Str s = (Str) value;
    return switch (target) {
      case "task_type", "processor" -> Mut.of(target, w, o -> o.put(target, s),
          Expect.refused(400, "validation_failed", w + " (not in the name alphabet)"));
      case "biz_key" -> Mut.of(target, w, o -> o.put(target, s), Expect.ok());
      case "payload" -> Mut.of("payload", w, o -> o.put("payload", new Obj(List.of(new Member(str("s"), s)))),
          Expect.ok());
      case "payload-key" -> Mut.of("payload", w, o -> o.put("payload", new Obj(List.of(new Member(s, num(1))))),
          Expect.ok());
      case "key" -> Mut.of("extra", w, o -> new Obj(append(o.members(), new Member(s, num(1)))),
          Expect.refused(400, "validation_failed", w + " (unknown member)"));
      default -> Mut.of(target, w, o -> o.put(target, s), Expect.any(w + " in a URL path"));
    };
  }

  private static List<Member> append(List<Member> members, Member m) {
    List<Member> out = new ArrayList<>(members);
    out.add(m);
    return out;
  }

  Arbitrary<Mut> duplicateKey() {
    return Arbitraries.of("task_type", "payload", "priority", "callback_url", "processor", "biz_key", "escaped",
        "case").map(field -> {
          UnaryOperator<Obj> apply = switch (field) {
            // the same key written two ways: "task_type" and "task\u005ftype". The plain one is put back
            // when another mutation took it away ("no task_type"): alone, the escaped spelling is simply
            // task_type, and the request is valid (CI, 2026-12-03: the fuzz expected a refusal of it).
            case "escaped" -> o -> {
              Obj plain = o.get("task_type") == null ? o.with("task_type", str("fz.other")) : o;
              return new Obj(append(plain.members(), new Member(
                  new RawStr("task\\u005ftype".getBytes(StandardCharsets.US_ASCII)), str("fz.other"))));
            };
            // differs in case only: not a duplicate, an unknown member
            case "case" -> o -> o.with("TASK_TYPE", str("fz.other"));
            default -> o -> {
              // A payload is written again small: three copies of a 64 KiB one would pass the body limit
              // (413 before any JSON is read), which is another case.
              J v = field.equals("payload") ? null : o.get(field);
              return o.with(field, v == null ? num(1) : v).with(field, v == null ? num(2) : v);
            };
          };
          if (field.equals("case")) {
            return Mut.of("extra", "member TASK_TYPE", apply, Expect.refused(400, "validation_failed", "unknown member"));
          }
          // a key twice is a flaw of its object: in a batch only its element is refused
          return new Mut("dup:" + field, "key " + field + " twice", apply,
              Expect.refused(400, "validation_failed", "key " + field + " twice"), Whole.NONE, 0);
        });
  }

  Arbitrary<Mut> deepPayload() {
    return Combinators.combine(Arbitraries.of(1, 10, 63, 64, 65, 69, 70, 71, 72, 73, 1000, 100_000),
        Arbitraries.of(false, true)).as((d, objects) -> {
          String what = "payload nested " + d + (objects ? " objects" : " arrays") + " deep";
          UnaryOperator<Obj> apply = o -> o.put("payload", new Deep(d, objects));
          if (d <= 64) {
            return new Mut("payload", what, apply, Expect.ok(), Whole.NONE, d);
          }
          // past 64 the payload is refused; past 72 (with what is around it) the body as a whole; past the
          // body limit with 413
          return new Mut("payload", what, apply, Expect.refused(what), Whole.NONE, d);
        });
  }

  Arbitrary<Mut> payloadSize() {
    // serialised: the string with its two quotes, each 'é' two bytes, each \u0001 six (\\u0001)
    return Combinators.combine(Arbitraries.of("x", "é", "\u0001"), Arbitraries.of(-1, 0, 1)).as((c, delta) -> {
      int unit = c.equals("x") ? 1 : c.equals("é") ? 2 : 6;
      int count = (65_536 - 2) / unit + (delta > 0 ? 1 : delta < 0 ? -1 : 0);
      int size = count * unit + 2;
      String what = "payload of " + size + " bytes serialised";
      UnaryOperator<Obj> apply = o -> o.put("payload", str(c.repeat(count)));
      return size > 65_536 ? Mut.of("payload", what, apply, Expect.refused(413, "payload_too_large", what))
          : Mut.of("payload", what, apply, Expect.ok());
    });
  }

  static final List<String> PAYLOAD_NUMBERS = List.of("1e400", "-1e400", "1e-400", "0.1000000000000000000001",
      "18446744073709551621", "123456789012345678901234567890.5", "9".repeat(500), "-0", "-0.0", "1E+2", "2.5e-3",
      "1.7976931348623157e309", "4.9e-325");

  Arbitrary<Mut> payloadNumbers() {
    Arbitrary<Mut> valid = Combinators.combine(Arbitraries.of(PAYLOAD_NUMBERS), Arbitraries.of(true, false))
        .as((lit, nested) -> Mut.of("payload", "payload number " + shorten(lit) + (nested ? " in an array" : ""),
            o -> o.put("payload", nested ? new Arr(List.of(new Lit(lit))) : new Lit(lit)), Expect.ok()));
    Arbitrary<Mut> invalid = Arbitraries.of("01", "+1", ".5", "NaN", "Infinity", "1.", "0x1F", "1e", "--1", "tru",
        "nul", "'x'", "undefined").map(lit -> new Mut("payload", "payload '" + lit + "'",
        o -> o.put("payload", new Lit(lit)), Expect.refused(400, "validation_failed", "not JSON"), Whole.ALWAYS, 0));
    return Arbitraries.oneOf(valid, invalid);
  }

  Arbitrary<Mut> callbackUrls() {
    int port = Integer.parseInt(receiverUrl.replaceAll(".*:(\\d+)/.*", "$1"));
    String base = "http://127.0.0.1:" + port;
    Map<String, Expect> urls = new java.util.LinkedHashMap<>();
    urls.put(receiverUrl + "?x=%C3%A9", Expect.ok());
    urls.put("HTTP://127.0.0.1:" + port + "/hook", Expect.ok());
    urls.put(base + "/hook#frag", Expect.refused(400, "validation_failed", "fragment"));
    urls.put(base + "/a b", Expect.refused(400, "validation_failed", "space"));
    urls.put(base + "/%zz", Expect.refused(400, "validation_failed", "bad escape"));
    urls.put(base + "/" + "a".repeat(2100), Expect.refused(400, "validation_failed", "longer than 2048"));
    urls.put("http://169.254.169.254/latest/meta-data", Expect.refused(400, "callback_url_not_allowed", "metadata"));
    urls.put("http://localhost:" + port + "/hook", Expect.refused(400, "callback_url_not_allowed", "not listed"));
    urls.put("http://[::1]:" + port + "/hook", Expect.refused(400, "callback_url_not_allowed", "not listed"));
    urls.put("ftp://127.0.0.1/x", Expect.refused(400, "validation_failed", "not http"));
    urls.put("http://127.0.0.1:0/x", Expect.refused(400, "validation_failed", "port 0"));
    urls.put("http://127.0.0.1:65536/x", Expect.refused(400, "validation_failed", "port 65536"));
    urls.put("http://127.0.0.1:99999999999/x", Expect.any("port beyond an int"));
    urls.put("http://user:pw@127.0.0.1:" + port + "/hook", Expect.refused(400, "validation_failed", "user info"));
    urls.put("http://0177.0.0.1/x", Expect.refused(400, "validation_failed", "octal host"));
    urls.put("http://2130706433/x", Expect.refused(400, "validation_failed", "decimal host"));
    urls.put("http:///x", Expect.refused(400, "validation_failed", "no host"));
    urls.put("http:127.0.0.1", Expect.refused(400, "validation_failed", "opaque"));
    urls.put("/hook", Expect.refused(400, "validation_failed", "relative"));
    urls.put("", Expect.refused(400, "validation_failed", "empty"));
    urls.put("   ", Expect.refused(400, "validation_failed", "blank"));
    urls.put("http://127.0.0.1.:" + port + "/hook", Expect.any("trailing dot"));
    urls.put(base + "/ü", Expect.any("non-ASCII path"));
    urls.put(base + "/\u2028", Expect.any("line separator in path"));
    urls.put("http://127.0.0.1:" + port + "/hook?" + "q".repeat(2000), Expect.ok());
    urls.put("http://[127.0.0.1]/x", Expect.refused("bracketed IPv4"));
    urls.put("http://%31%32%37.0.0.1/x", Expect.any("escaped host"));
    urls.put("javascript:alert(1)", Expect.refused(400, "validation_failed", "not http"));
    return Arbitraries.of(new ArrayList<>(urls.keySet())).map(u -> Mut.of("callback_url", "callback_url '"
        + shorten(u) + "'", o -> o.put("callback_url", str(u)), urls.get(u)));
  }

  Arbitrary<Mut> names(Kind k) {
    List<String> fields = k == Kind.HTTP ? List.of("task_type") : List.of("task_type", "processor");
    Map<String, Boolean> values = new java.util.LinkedHashMap<>();
    values.put("a".repeat(128), true);
    values.put("a".repeat(129), false);
    values.put("", false);
    values.put("a b", false);
    values.put("a/b", false);
    values.put("a\n", false);
    values.put("._:-", true);
    values.put("Ab9.:_-", true);
    values.put("a+b", false);
    values.put("a%2Bb", false);
    return Combinators.combine(Arbitraries.of(fields), Arbitraries.of(new ArrayList<>(values.keySet())))
        .as((f, v) -> Mut.of(f, f + " '" + shorten(escapeJava(v)) + "'", o -> o.put(f, str(v)),
            values.get(v) ? Expect.ok() : Expect.refused(400, "validation_failed", f + " not a name")));
  }

  Arbitrary<Mut> webhookAndDependencies() {
    return Arbitraries.of("notify_url", "depends_on", "depends_on[]").map(f -> Mut.of(f.startsWith("dep")
            ? "depends_on" : f, f, switch (f) {
              case "notify_url" -> o -> o.put("notify_url", str(receiverUrl));
              case "depends_on" -> o -> o.put("depends_on", new Arr(List.of(str("1"))));
              default -> o -> o.put("depends_on", new Arr(List.of()));
            }, f.equals("notify_url") ? Expect.ok()
                : Expect.refused(400, "validation_failed", f.equals("depends_on")
                    ? "depends_on names no task of the caller's" : "depends_on is empty")));
  }

  Arbitrary<Mut> bizKeyLengths() {
    Map<String, Expect> keys = new java.util.LinkedHashMap<>();
    keys.put("", Expect.refused(400, "validation_failed", "empty biz_key"));
    keys.put("k".repeat(128), Expect.ok());
    keys.put("k".repeat(129), Expect.refused(400, "validation_failed", "129 characters"));
    keys.put("é".repeat(128), Expect.ok());
    keys.put("\uD83D\uDE00".repeat(64), Expect.ok());
    // 100 code points: within openapi.yaml's maxLength 128 (JSON Schema counts code points)
    keys.put("\uD83D\uDE00".repeat(100), Expect.ok());
    keys.put("\uD83D\uDE00".repeat(129), Expect.refused(400, "validation_failed", "129 code points"));
    return Arbitraries.of(new ArrayList<>(keys.keySet())).map(b -> Mut.of("biz_key", "biz_key of "
        + b.codePointCount(0, b.length()) + " code points (" + b.length() + " chars)", o -> o.put("biz_key", str(b)),
        keys.get(b)));
  }

  // ---------------------------------------------------------------------------------------------
  // Operations

  private static FuzzCase post(String op, String path, J doc, Expect e, List<Expect> items, String what) {
    return new FuzzCase(what, op, "POST", path, null, new FuzzCase.Json(doc, 0), new RawHttp.Length(),
        "application/json", List.of(), Signing.VALID, e, items);
  }

  private static FuzzCase get(String op, String path, String query, Expect e, String what) {
    return new FuzzCase(what, op, "GET", path, query, new FuzzCase.NoBody(), new RawHttp.Length(), null, List.of(),
        Signing.VALID, e, List.of());
  }

  Arbitrary<FuzzCase> createTask() {
    return Arbitraries.frequencyOf(Tuple.of(3, task(Kind.HTTP, 3)), Tuple.of(2, task(Kind.PROCESSOR, 3)))
        .map(t -> post("createTask", TASKS, t.doc(), t.expect(), List.of(), "createTask " + t.what()));
  }

  Arbitrary<FuzzCase> sync() {
    return task(Kind.SYNC, 3).map(t -> post("runTaskSync", TASKS + "/sync", t.doc(), t.expect(), List.of(),
        "runTaskSync " + t.what()));
  }

  Arbitrary<FuzzCase> batch() {
    Arbitrary<Task> element = Arbitraries.frequencyOf(
        Tuple.of(10, Arbitraries.oneOf(task(Kind.HTTP, 1), task(Kind.PROCESSOR, 1))),
        Tuple.of(1, Arbitraries.of("\"x\"", "1", "null", "[]", "true", "[{}]").map(v -> new Task(null,
            Expect.refused(400, "validation_failed", "element " + v), Whole.NONE, 0, "element " + v))));
    Arbitrary<FuzzCase> shaped = element.list().ofMinSize(1).ofMaxSize(20).map(ts -> {
      List<J> docs = new ArrayList<>();
      List<Expect> items = new ArrayList<>();
      Whole whole = Whole.NONE;
      StringBuilder what = new StringBuilder("createTaskBatch of " + ts.size() + ":");
      for (Task t : ts) {
        docs.add(t.doc() == null ? new Lit(t.what().substring("element ".length())) : t.doc());
        items.add(t.expect());
        Whole w = t.doc() == null ? Whole.NONE : t.wholeIn(2);
        whole = whole.ordinal() >= w.ordinal() ? whole : w;
        what.append(" [").append(t.what()).append(']');
      }
      J doc = obj().put("tasks", new Arr(docs));
      Expect e = switch (whole) {
        case ALWAYS -> Expect.refused(400, "validation_failed", "an element breaks the body's JSON limits");
        case MAYBE -> Expect.any("an element may break the body's JSON limits");
        case NONE -> Expect.ok();
      };
      return post("createTaskBatch", TASKS + "/batch", doc, e, whole == Whole.ALWAYS ? List.of() : items,
          what.toString());
    });
    Arbitrary<FuzzCase> misshapen = task(Kind.HTTP, 0).flatMap(t -> Arbitraries.of(
        "tasks object", "tasks string", "tasks null", "tasks number", "no tasks", "empty tasks", "an array",
        "extra member", "tasks twice", "1001 tasks", "1000 tasks").map(kind -> {
          Expect refused = Expect.refused(400, "validation_failed", kind);
          J doc = switch (kind) {
            case "tasks object" -> obj().put("tasks", obj().put("a", t.doc()));
            case "tasks string" -> obj().put("tasks", str("x"));
            case "tasks null" -> obj().put("tasks", new Lit("null"));
            case "tasks number" -> obj().put("tasks", num(1));
            case "no tasks" -> obj();
            case "empty tasks" -> obj().put("tasks", new Arr(List.of()));
            case "an array" -> new Arr(List.of(t.doc()));
            case "extra member" -> obj().put("tasks", new Arr(List.of(t.doc()))).with("colour", num(1));
            case "tasks twice" -> obj().put("tasks", new Arr(List.of(t.doc()))).with("tasks", new Arr(List.of(t.doc())));
            case "1001 tasks" -> obj().put("tasks", new Repeat(t.doc().without("biz_key"), 1001));
            default -> obj().put("tasks", new Repeat(t.doc().without("biz_key"), 1000));
          };
          boolean thousand = kind.equals("1000 tasks");
          List<Expect> items = new ArrayList<>();
          for (int i = 0; thousand && i < 1000; i++) {
            items.add(t.expect());
          }
          return post("createTaskBatch", TASKS + "/batch", doc, thousand ? t.expect().kind() == Expect.Kind.SUCCESS
              ? Expect.ok() : Expect.any("1000 of one element") : refused, items, "createTaskBatch " + kind + " of "
              + t.what());
        }));
    return Arbitraries.frequencyOf(Tuple.of(12, shaped), Tuple.of(1, misshapen));
  }

  static final List<String> BAD_IDS = List.of("abc", "-5", "+5", "%20", "1".repeat(20), "0x10", "1e3", "1.0",
      "%EF%BC%91", "00000000000000000001", "1%00", "%FF", "12ab");
  static final List<String> ABSENT_IDS = List.of("0", "1", "9223372036854775807", "9223372036854775808",
      "9999999999999999999", "0000000000000000001");

  Arbitrary<FuzzCase> byId() {
    Arbitrary<String> op = Arbitraries.of("getTask", "listTaskAttempts", "cancelTask");
    Arbitrary<String[]> id = Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(new String[] {FuzzCase.KNOWN_ID, "known"})),
        Tuple.of(2, Arbitraries.longs().between(1, 999_999_999_999_999_999L).map(n -> new String[] {
            Long.toString(n), "absent"})),
        Tuple.of(2, Arbitraries.of(ABSENT_IDS).map(s -> new String[] {s, "absent"})),
        Tuple.of(3, Arbitraries.of(BAD_IDS).map(s -> new String[] {s, "bad"})),
        Tuple.of(1, Arbitraries.of("1%2F2", "1;x=2", "..", ".", "%2E%2E", "1/", "\u00ff", "%C3%A9").map(s ->
            new String[] {s, "odd"})));
    return Combinators.combine(op, id).as((o, i) -> {
      String suffix = o.equals("getTask") ? "" : o.equals("cancelTask") ? "/cancel" : "/attempts";
      Expect e = switch (i[1]) {
        case "known" -> o.equals("cancelTask") ? Expect.any("cancel: 200 or 409") : Expect.ok();
        case "absent" -> Expect.refused(404, "not_found", "no such task");
        case "bad" -> Expect.refused(400, "validation_failed", "malformed id");
        default -> Expect.any("odd path segment");
      };
      String path = TASKS + "/" + i[0] + suffix;
      String what = o + " id " + i[1] + " '" + i[0] + "'";
      String operation = i[1].equals("odd") ? null : o; // an odd segment may route elsewhere
      return o.equals("cancelTask")
          ? new FuzzCase(what, operation, "POST", path, null, new FuzzCase.NoBody(), new RawHttp.Length(), null, List.of(),
              Signing.VALID, e, List.of())
          : get(operation, path, null, e, what);
    });
  }

  Arbitrary<FuzzCase> list() {
    Arbitrary<String[]> status = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of("CREATED", "DELAYED", "READY", "RUNNING", "SUCCESS", "FAILED", "CANCELLED",
            "SKIPPED").map(s -> new String[] {"status=" + s, ""})),
        Tuple.of(1, Arbitraries.of("delayed", "WAITING", "", "DELAYED,READY", "DELAYED%00")
            .map(s -> new String[] {"status=" + s, "status '" + s + "'"})),
        Tuple.of(1, Arbitraries.just(new String[] {"status=%FF", "bad escape"})));
    Arbitrary<String[]> type = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(SHARED_TYPES).map(s -> new String[] {"task_type=" + s, ""})),
        Tuple.of(1, Arbitraries.of("has%20space", "a+b", "a%2Bb", "x".repeat(129), "%00", "%C3%A9", "a*")
            .map(s -> new String[] {"task_type=" + s, "task_type '" + shorten(s) + "'"})),
        Tuple.of(1, Arbitraries.just(new String[] {"task_type=", "?empty task_type"})));
    Arbitrary<String[]> limit = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of("1", "2", "50", "500").map(s -> new String[] {"limit=" + s, ""})),
        Tuple.of(2, Arbitraries.of("0", "501", "1001", "-1", "abc", "1.5", "", "%205", "1e2", "2147483648",
            "99999999999999999999", "0x10").map(s -> new String[] {"limit=" + s, "limit '" + s + "'"})),
        Tuple.of(1, Arbitraries.of("+5", "00010").map(s -> new String[] {"limit=" + s, "?limit '" + s + "'"})));
    Arbitrary<String[]> cursor = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.just(new String[] {"cursor=" + FuzzCase.CURSOR, ""})),
        Tuple.of(2, Arbitraries.of("garbage!", "AAAA", "A".repeat(513), "%00", "AQ", "=")
            .map(s -> new String[] {"cursor=" + s, "cursor '" + shorten(s) + "'"})),
        Tuple.of(1, Arbitraries.just(new String[] {"cursor=%FF", "bad escape"})),
        Tuple.of(2, Combinators.combine(Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L,
                253_402_300_800_000_000L, -62_135_596_800_000_000L),
            Arbitraries.of(1L, Long.MAX_VALUE, 0L, -1L, Long.MIN_VALUE), Arbitraries.of(1, 2, 0))
            .as((micros, id, version) -> new String[] {"cursor=" + cursor(version, micros, id),
                "?forged cursor v" + version + " at " + micros + "us after " + id})));
    Arbitrary<String[]> junk = Arbitraries.of(new String[] {"foo=bar", "?unknown parameter"},
        new String[] {"limit=1&limit=2", "duplicate limit"}, new String[] {"status=DELAYED&status=READY",
            "duplicate status"}, new String[] {"%zz=1", "bad escape"}, new String[] {"&&", ""},
        new String[] {"limit", "limit without value"}, new String[] {"=x", "?empty name"});
    Arbitrary<List<String[]>> params = Combinators.combine(maybeParam(status), maybeParam(type), maybeParam(limit),
        maybeParam(cursor), Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(new String[0])),
            Tuple.of(1, junk))).as(List::of);
    return params.map(ps -> {
      List<String> q = new ArrayList<>();
      Expect e = Expect.ok();
      StringBuilder what = new StringBuilder("listTasks");
      for (String[] p : ps) {
        if (p.length == 0) {
          continue;
        }
        q.add(p[0]);
        if (p[1].startsWith("?")) {
          e = e.and(Expect.any(p[1].substring(1)));
          what.append(", ").append(p[1].substring(1));
        } else if (!p[1].isEmpty()) {
          int st = p[1].equals("bad escape") ? 401 : 400;
          e = e.and(Expect.refused(st, st == 401 ? "signature_mismatch" : "validation_failed", p[1]));
          what.append(", ").append(p[1]);
        }
      }
      return get("listTasks", TASKS, q.isEmpty() ? null : String.join("&", q), e, what.toString());
    });
  }

  private static Arbitrary<String[]> maybeParam(Arbitrary<String[]> p) {
    return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(new String[0])), Tuple.of(1, p));
  }

  private static String cursor(int version, long micros, long id) {
    byte[] b = java.nio.ByteBuffer.allocate(17).put((byte) version).putLong(micros).putLong(id).array();
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  Arbitrary<FuzzCase> operations() {
    return Arbitraries.of(
        new String[] {"health", "/health", null, "ok"}, new String[] {"health", "/health", "detail=true", "ok"},
        new String[] {"health", "/health", "detail=false", "ok"}, new String[] {"health", "/health", "detail=abc", "any"},
        new String[] {"health", "/health", "detail=true&detail=false", "any"},
        new String[] {"healthLive", "/health/live", null, "ok"}, new String[] {"healthReady", "/health/ready", null, "ok"},
        new String[] {"metrics", "/metrics", null, "ok"}, new String[] {"metrics", "/metrics", "name[]=x", "any"})
        .map(o -> new FuzzCase(o[0], o[0], "GET", o[1], o[2], new FuzzCase.NoBody(), new RawHttp.Length(), null,
            List.of(), Signing.UNSIGNED, o[3].equals("ok") ? Expect.ok() : Expect.any("an odd query"), List.of()));
  }

  Arbitrary<FuzzCase> strayRoutes() {
    return Arbitraries.of(
        new String[] {"GET", "/openapi/v1/nope"}, new String[] {"GET", "/openapi/v2/tasks"},
        new String[] {"GET", "/nope"}, new String[] {"GET", "/"}, new String[] {"GET", TASKS + "/"},
        new String[] {"GET", "//openapi/v1/tasks"}, new String[] {"GET", TASKS + "/../tasks"},
        new String[] {"DELETE", TASKS + "/1"}, new String[] {"PUT", TASKS}, new String[] {"PATCH", TASKS},
        new String[] {"OPTIONS", TASKS}, new String[] {"POST", "/health"}, new String[] {"HEAD", "/health"},
        new String[] {"GET", TASKS + "/batch"}, new String[] {"GET", TASKS + "/sync"}, new String[] {"TRACE", "/"},
        new String[] {"POST", TASKS + "/1/attempts"}, new String[] {"GET", "/openapi/v1/tasks/1/cancel"},
        new String[] {"GET", "/openapi/v1/schedules"}, new String[] {"BREW", TASKS})
        .map(r -> new FuzzCase("stray " + r[0] + " " + r[1], null, r[0], r[1], null, new FuzzCase.NoBody(),
            new RawHttp.Length(), null, List.of(), Signing.VALID, Expect.any("a route the contract does not name"),
            List.of()));
  }

  // ---------------------------------------------------------------------------------------------
  // Around the body: signing, headers, framing, size, query, method

  @SuppressWarnings("unchecked")
  Arbitrary<FuzzCase> requestLevel(FuzzCase c) {
    boolean signed = c.path().startsWith("/openapi/");
    boolean hasBody = !(c.body() instanceof FuzzCase.NoBody);
    // each kind of change at most once (a second would overwrite the first, and its verdict with it)
    boolean jsonBody = c.body() instanceof FuzzCase.Json j && j.padTo() == 0;
    boolean firstLayer = !c.what().contains("; ");
    List<Tuple.Tuple2<Integer, Arbitrary<FuzzCase>>> choices = new ArrayList<>();
    choices.add(Tuple.of(60, Arbitraries.just(c)));
    if (signed && c.signing() == Signing.VALID) {
      choices.add(Tuple.of(10, signing(c)));
    }
    if (signed) {
      choices.add(Tuple.of(3, query(c)));
    }
    if (hasBody && "application/json".equals(c.contentType())) {
      choices.add(Tuple.of(6, contentType(c)));
    }
    if (hasBody && c.framing() instanceof RawHttp.Length) {
      choices.add(Tuple.of(5, framing(c)));
    }
    if (jsonBody && "POST".equals(c.method())) {
      choices.add(Tuple.of(3, size(c)));
    }
    if (jsonBody) {
      choices.add(Tuple.of(3, bodies(c)));
    }
    choices.add(Tuple.of(3, headers(c)));
    if (c.operation() != null && firstLayer) {
      choices.add(Tuple.of(1, method(c)));
    }
    if (!hasBody && c.method().equals("GET")) {
      choices.add(Tuple.of(1, strayBody(c)));
    }
    return Arbitraries.frequencyOf(choices.toArray(new Tuple.Tuple2[0]));
  }

  Arbitrary<FuzzCase> signing(FuzzCase c) {
    return Arbitraries.of(Signing.values()).filter(s -> s != Signing.VALID).map(s -> c.withSigning(s,
        s.accepted() ? (s == Signing.UPPERCASE ? Expect.any("upper-case hex signature") : Expect.ok())
            : Expect.refused(401, null, "signing " + s)));
  }

  Arbitrary<FuzzCase> contentType(FuzzCase c) {
    Map<String, Expect> types = new java.util.LinkedHashMap<>();
    types.put("application/json; charset=utf-8", Expect.ok());
    types.put("APPLICATION/JSON", Expect.ok());
    types.put("application/json;", Expect.ok());
    types.put("application/json ; charset=UTF-8", Expect.ok());
    Expect unsupported = Expect.refused(415, "unsupported_media_type", "not application/json");
    for (String t : List.of("application/jsonx", "text/plain", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz", "application/problem+json", "application/json, text/plain",
        "text/json", "json", "", "application/*", "*/*")) {
      types.put(t, unsupported);
    }
    types.put(null, unsupported);
    List<String> keys = new ArrayList<>(types.keySet());
    return Arbitraries.of(keys).map(t -> c.withContentType(t, types.get(t)));
  }

  Arbitrary<FuzzCase> framing(FuzzCase c) {
    Arbitrary<FuzzCase> chunked = Arbitraries.integers().between(1, 70_000).list().ofMinSize(1).ofMaxSize(4)
        .map(sizes -> c.withFraming(new RawHttp.Chunked(sizes), "chunked " + sizes, Expect.ok()));
    // Content-Length values the HTTP codec itself refuses are in ApiFuzzIT's protocol property
    Arbitrary<FuzzCase> declared = Arbitraries.of("over-limit", "one-short").map(kind -> {
      long limit = limitOf(c);
      return kind.equals("over-limit")
          ? c.withFraming(new RawHttp.Declared(List.of("" + (limit + 1))), "Content-Length " + (limit + 1)
              + " (over the limit), fewer bytes sent", Expect.refused(413, "payload_too_large", "declared over the limit"))
          : c.path().startsWith("/openapi/")
              ? c.withFraming(new RawHttp.Declared(List.of("{n-1}")), "Content-Length one short",
                  Expect.refused("body one byte short of what was signed"))
              // the operator endpoints are unsigned: they read the n-1 bytes they were told of (a stray body
              // they tolerate), and the last byte starts the connection's next request (found by CI's fuzz run
              // of 2026-12-04, seed -4047919722468643817: GET /health answered 200, which is right)
              : oneByteOverTheLimit(c, limit)
                  // ...so a body one byte over the limit is read as one exactly at it, and the size refusal that
                  // came with the body no longer applies (CI of 2026-12-05: a 1 025-byte stray body on GET
                  // /health, declared as 1 024 bytes, answered 200, which is right)
                  ? c.withFramingInstead(new RawHttp.Declared(List.of("{n-1}")), "Content-Length one short",
                      Expect.any("one short on an unsigned endpoint: the n-1 bytes read are within the limit"))
                  : c.withFraming(new RawHttp.Declared(List.of("{n-1}")), "Content-Length one short",
                      Expect.any("one short on an unsigned endpoint: nothing signed to mismatch"));
    });
    // Without Content-Length or chunked framing a request has no body (RFC 9112 6.3): the bytes that
    // follow are the connection's next request, so nothing said about the body applies any more.
    Arbitrary<FuzzCase> none = Arbitraries.just("POST".equals(c.method()) && c.operation() != null
        && !"cancelTask".equals(c.operation())
        ? c.withFraming(new RawHttp.NoLength(), "no body sent", Expect.refused(400, "validation_failed", "no body"))
        : c.withFramingInstead(new RawHttp.NoLength(), "no body sent", Expect.any("no body: its bytes are not part "
            + "of this request")));
    return Arbitraries.frequencyOf(Tuple.of(4, chunked), Tuple.of(3, declared), Tuple.of(1, none));
  }

  private static boolean oneByteOverTheLimit(FuzzCase c, long limit) {
    return c.body().bytes(System.currentTimeMillis()).length == limit + 1;
  }

  static long limitOf(FuzzCase c) {
    if (!"POST".equals(c.method())) {
      return NO_BODY_LIMIT;
    }
    if (c.path().endsWith("/tasks/batch")) {
      return BATCH_LIMIT;
    }
    return c.path().endsWith("/tasks") || c.path().endsWith("/tasks/sync") ? SINGLE_LIMIT : NO_BODY_LIMIT;
  }

  Arbitrary<FuzzCase> size(FuzzCase c) {
    long limit = limitOf(c);
    FuzzCase.Json body = (FuzzCase.Json) c.body();
    return Arbitraries.of(0, 1).map(over -> c.withBody(new FuzzCase.Json(body.doc(), (int) limit + over),
        "padded with spaces to " + (limit + over) + " bytes", over == 1
            ? Expect.refused(413, "payload_too_large", "body over the limit") : Expect.ok()));
  }

  Arbitrary<FuzzCase> query(FuzzCase c) {
    if (c.query() != null) {
      return Arbitraries.oneOf(
          Arbitraries.just(c.withQuery(c.query() + "&" + c.query(), doubled(c.query()))),
          Arbitraries.just(c.withQuery(c.query().replace("=", "=%41"), Expect.any("values changed"))));
    }
    return Arbitraries.of(
            new String[] {"x=1", "any"}, new String[] {"a=1&a=2", "400"}, new String[] {"a=1&a=1", "400"},
            new String[] {"%zz", "401"}, new String[] {"a=%FF", "401"}, new String[] {"a+b=c%2Bd", "any"},
            new String[] {"&&&", "any"}, new String[] {"=", "any"}, new String[] {"a=%E2%82", "401"},
            new String[] {"a=" + "q".repeat(1500), "any"})
        .map(q -> c.withQuery(q[0], switch (q[1]) {
          case "400" -> Expect.refused(400, "validation_failed", "duplicate parameter");
          case "401" -> Expect.refused(401, "signature_mismatch", "query not percent-encoded UTF-8");
          default -> Expect.any("an extra query");
        }));
  }

  /**
   * What a query sent twice over deserves: a query with parameters names each twice (400); one whose
   * percent-encoding is broken stays unverifiable (401, the signature check reads it first); one with
   * no parameter at all ({@code &&&}, found by CI's shrinker) still has none, so anything goes.
   */
  static Expect doubled(String query) {
    try {
      return RequestSigning.parameters(query).isEmpty() ? Expect.any("an empty query twice: still no parameters")
          : Expect.refused(400, "validation_failed", "every parameter twice");
    } catch (RequestSigning.DuplicateParameterException alreadyTwice) {
      return Expect.refused(400, "validation_failed", "every parameter twice");
    } catch (IllegalArgumentException malformed) {
      return Expect.refused(401, "signature_mismatch", "query not percent-encoded UTF-8, twice");
    }
  }

  Arbitrary<FuzzCase> headers(FuzzCase c) {
    return Arbitraries.of(
            new String[] {"X-Ax-Nonce", "another-nonce-123"}, new String[] {"X-Ax-Signature", "0".repeat(64)},
            new String[] {"X-Ax-Key", "someone-else"}, new String[] {"X-Ax-Timestamp", "1"},
            new String[] {"Expect", "100-continue"}, new String[] {"Content-Encoding", "gzip"},
            new String[] {"Connection", "close"}, new String[] {"X-Pad", "p".repeat(12_000)},
            new String[] {"Accept", "application/xml"},
            new String[] {"X-Forwarded-For", "169.254.169.254"}, new String[] {"Host", "evil.example"},
            new String[] {"Content-Type", "text/plain"})
        .map(h -> c.withHeader(h[0], h[1], Expect.any("header " + h[0] + " added")));
  }

  Arbitrary<FuzzCase> method(FuzzCase c) {
    List<String> others = new ArrayList<>(List.of("PUT", "PATCH", "DELETE", "GET", "POST"));
    others.remove(c.method());
    return Arbitraries.of(others).map(m -> c.withMethod(m, m.equals("GET") || m.equals("POST")
        ? Expect.any("method " + m + " may name another operation") : Expect.refused("method " + m + " not declared here")));
  }

  Arbitrary<FuzzCase> bodies(FuzzCase c) {
    FuzzCase.Json json = (FuzzCase.Json) c.body();
    Arbitrary<FuzzCase> utf16 = Arbitraries.just(c.withBody(new FuzzCase.Utf16(json.doc()), "body in UTF-16",
        Expect.any("UTF-16 body")));
    boolean consumed = c.operation() != null && List.of("createTask", "createTaskBatch", "runTaskSync")
        .contains(c.operation());
    Arbitrary<FuzzCase> truncated = Arbitraries.integers().between(1, 99).map(p -> noItems(c.withBody(
        new FuzzCase.Truncated(json.doc(), p), "body cut to " + p + "%", consumed
            ? Expect.refused(400, "validation_failed", "truncated JSON") : Expect.any("a body the operation ignores"))));
    Map<String, Expect> raws = new java.util.LinkedHashMap<>();
    Expect notAnObject = consumed ? Expect.refused(400, "validation_failed", "not a JSON object") : Expect.any("a body the operation ignores");
    for (String r : List.of("{not json", "null", "[]", "\"str\"", "1", "{}", "{\"task_type\":", "{\"a\":1}{\"b\":2}",
        "{\"a\":1} x", "{'task_type':'x'}", "{task_type:\"x\"}", "{\"a\":1,}", "[1,]", "{\"a\" 1}")) {
      raws.put(r, notAnObject);
    }
    Arbitrary<FuzzCase> raw = Arbitraries.of(new ArrayList<>(raws.keySet())).map(r -> noItems(c.withBody(
        new FuzzCase.Raw(r.getBytes(StandardCharsets.UTF_8)), "body '" + r + "'", raws.get(r))));
    Arbitrary<FuzzCase> bom = Arbitraries.just(c.withBody(new FuzzCase.Bom(json.doc()), "body after a UTF-8 BOM",
        Expect.any("a BOM")));
    Arbitrary<FuzzCase> garbage = Arbitraries.bytes().list().ofMinSize(1).ofMaxSize(200).map(bs -> {
      byte[] b = new byte[bs.size()];
      for (int i = 0; i < b.length; i++) {
        b[i] = bs.get(i);
      }
      return noItems(c.withBody(new FuzzCase.Raw(b), "random bytes", Expect.any("random bytes")));
    });
    return Arbitraries.frequencyOf(Tuple.of(1, utf16), Tuple.of(2, truncated), Tuple.of(3, raw), Tuple.of(1, bom),
        Tuple.of(2, garbage));
  }

  private static FuzzCase noItems(FuzzCase c) {
    return new FuzzCase(c.what(), c.operation(), c.method(), c.path(), c.query(), c.body(), c.framing(),
        c.contentType(), c.headers(), c.signing(), c.expect(), List.of());
  }

  Arbitrary<FuzzCase> strayBody(FuzzCase c) {
    return Arbitraries.of(10, 1024, 1025).map(n -> new FuzzCase(c.what() + "; a " + n + "-byte body on a GET",
        c.operation(), c.method(), c.path(), c.query(), new FuzzCase.Json(obj(), n), new RawHttp.Length(),
        "application/json", c.headers(), c.signing(),
        n > NO_BODY_LIMIT ? c.expect().and(Expect.refused(413, "payload_too_large", "a body over 1 KiB"))
            : c.expect().and(Expect.any("a small body where none is expected")), c.items()));
  }

  static String shorten(String s) {
    return s.length() > 40 ? s.substring(0, 20) + "…(" + s.length() + " chars)" : s;
  }

  static String escapeJava(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      b.append(c < 0x20 || c > 0x7E ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return b.toString();
  }
}
