package ax.api;

import ax.json.CanonicalJson;
import ax.json.JsonText;
import ax.clock.Rfc3339;
import ax.http.CallbackUrlPolicy;
import ax.task.Fingerprint;
import ax.task.NewTask;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a task submission against API.md's rules and turns it into a {@link Submission}. The OpenAPI
 * schema already rejects wrong types and unknown fields; this class owns the rules a schema cannot
 * state well (exactly one target, at most one time, URL policy, payload size) and names the offending
 * field in every error. No I/O: DNS checks of the callback host happen in the handler.
 */
public final class TaskRequestParser {
  public static final int MAX_PAYLOAD_BYTES = 64 * 1024;
  /** How far ahead a task may be scheduled (trigger_time, delay_ms). */
  static final long MAX_FUTURE_MS = 10L * 366 * 86_400_000L;
  /**
   * How far back a trigger time may lie. A past time means "run now"; one older than a year is a
   * client's mistake (an epoch-0 date, a year typed wrong), and far-past dates are not even storable.
   */
  static final long MAX_PAST_MS = 366L * 86_400_000L;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  /** {@code "#<index>"}: an item of the same batch (0..999). */
  private static final Pattern TASK_ID = Pattern.compile("[0-9]{1,19}");
  private static final Pattern BATCH_REF = Pattern.compile("#(0|[1-9][0-9]{0,2})");
  private static final Set<String> FIELDS = Set.of("task_type", "trigger_time", "delay_ms", "payload",
      "callback_url", "processor", "max_retry", "priority", "timeout_ms", "biz_key", "notify_url",
      "shard_total", "depends_on", "dedupe");
  /**
   * Members that may be null. {@code payload}: a JSON null is a payload like any other. {@code depends_on}:
   * null means none, as if left out — openapi.yaml declares it nullable so that generated models hold no
   * list until the caller sets one (a model that starts with an empty list would send {@code []}).
   */
  private static final Set<String> NULLABLE = Set.of("payload", "depends_on");

  /** Most parents a task may name (API.md). */
  public static final int MAX_PARENTS = 50;

  /**
   * The parents a submission names: ids of stored tasks, and (in a batch only) earlier items of the same
   * batch by their index ({@code "#3"}). Empty for a task without dependencies.
   */
  public record DependsOn(long[] taskIds, int[] batchItems) {
    public static final DependsOn NONE = new DependsOn(new long[0], new int[0]);

    public boolean isEmpty() {
      return taskIds.length == 0 && batchItems.length == 0;
    }
  }

  /**
   * A valid submission, before it gets an id, a tenant and a status. {@code payloadDigest}: the
   * {@link Fingerprint#payloadDigest} of its canonical payload, or null when it asked {@code "dedupe": false}.
   */
  public record Submission(String taskType, long triggerTimeMs, int priority, int maxRetry, int timeoutMs,
                           String callbackUrl, String processor, String payloadJson, String bizKey,
                           int shardTotal, DependsOn dependsOn, String notifyUrl, String payloadDigest) {
    public NewTask toNewTask(long taskId, String tenantId, String apiKey, ax.task.TaskStatus status) {
      return new NewTask(taskId, tenantId, apiKey, taskType, triggerTimeMs, status, priority, maxRetry,
          timeoutMs, callbackUrl, processor, payloadJson, bizKey, shardTotal, notifyUrl,
          payloadDigest == null ? null : Fingerprint.of(tenantId, taskType, payloadDigest));
    }
  }

  private final CallbackUrlPolicy urlPolicy;

  public TaskRequestParser(CallbackUrlPolicy urlPolicy) {
    this.urlPolicy = urlPolicy;
  }

  /** @param receivedAtMs when the request arrived, on the database clock (the base of {@code delay_ms}) */
  public Submission parse(JsonObject body, long receivedAtMs) throws InvalidRequest {
    if (body == null) {
      throw new InvalidRequest(Problem.validation("body: a JSON object is required"));
    }
    for (String name : body.fieldNames()) {
      if (!FIELDS.contains(name)) {
        throw InvalidRequest.field(name, "unknown field");
      }
      // openapi.yaml types these members without null: leave a member out to mean "none"
      if (body.getValue(name) == null && !NULLABLE.contains(name)) {
        throw InvalidRequest.field(name, "must not be null (leave the member out instead)");
      }
    }
    String taskType = string(body, "task_type", true);
    if (!NAME.matcher(taskType).matches()) {
      throw InvalidRequest.field("task_type", "must be 1-128 characters of [A-Za-z0-9._:-]");
    }
    long trigger = triggerTime(body, receivedAtMs);

    String callbackUrl = string(body, "callback_url", false);
    String processor = string(body, "processor", false);
    if ((callbackUrl == null) == (processor == null)) {
      throw InvalidRequest.field("callback_url", "exactly one of callback_url or processor is required");
    }
    if (callbackUrl != null) {
      CallbackUrlPolicy.Verdict v = urlPolicy.checkUrl(callbackUrl);
      if (!v.allowed()) {
        throw new InvalidRequest(new Problem(400, v.code(), "Callback URL refused", "callback_url: " + v.detail()));
      }
    }
    if (processor != null && !ax.protocol.Names.isProcessor(processor)) {
      throw InvalidRequest.field("processor", "must be 1-128 characters of [A-Za-z0-9._:-]");
    }
    String notifyUrl = string(body, "notify_url", false);
    if (notifyUrl != null) {
      CallbackUrlPolicy.Verdict v = urlPolicy.checkUrl(notifyUrl);
      if (!v.allowed()) {
        throw new InvalidRequest(new Problem(400, v.code(), "Notify URL refused", "notify_url: " + v.detail()));
      }
    }
    DependsOn dependsOn = dependsOn(body);
    int shardTotal = integer(body, "shard_total", 1, 1, 1024);
    if (shardTotal != 1 && processor == null) {
      throw InvalidRequest.field("shard_total", "only processor tasks can be sharded (executors run the shards)");
    }

    String payloadJson = null;
    if (body.containsKey("payload")) {
      if (JsonLimits.depth(body.getValue("payload")) > JsonLimits.MAX_PAYLOAD_DEPTH) {
        throw InvalidRequest.field("payload", "nested more than " + JsonLimits.MAX_PAYLOAD_DEPTH + " levels deep");
      }
      payloadJson = JsonText.encode(body.getValue("payload")); // numbers written out, as jsonb will
      if (payloadJson.getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
        throw new InvalidRequest(new Problem(413, "payload_too_large", "Payload too large",
            "payload: larger than " + MAX_PAYLOAD_BYTES + " bytes serialised"));
      }
    }
    String bizKey = string(body, "biz_key", false);
    if (bizKey != null && (bizKey.isEmpty() || bizKey.codePointCount(0, bizKey.length()) > 128)) {
      throw InvalidRequest.field("biz_key", "must be 1-128 characters");
    }
    Object dedupe = body.getValue("dedupe", Boolean.TRUE);
    if (!(dedupe instanceof Boolean)) {
      throw InvalidRequest.field("dedupe", "must be true or false");
    }
    String payloadDigest = (Boolean) dedupe
        ? Fingerprint.payloadDigest(CanonicalJson.of(body.getValue("payload"))) : null;
    return new Submission(taskType, trigger,
        integer(body, "priority", NewTask.DEFAULT_PRIORITY, 0, 9),
        integer(body, "max_retry", NewTask.DEFAULT_MAX_RETRY, 0, 10),
        integer(body, "timeout_ms", NewTask.DEFAULT_TIMEOUT_MS, 1, 86_400_000),
        callbackUrl, processor, payloadJson, bizKey, shardTotal, dependsOn, notifyUrl, payloadDigest);
  }

  /**
   * {@code depends_on}: 1–50 distinct references, each a task id (a decimal string) or {@code "#<index>"}
   * of an earlier item of the same batch (whether it is earlier is the batch's check). Left out or null:
   * none.
   */
  private static DependsOn dependsOn(JsonObject body) throws InvalidRequest {
    if (!isPresent(body, "depends_on")) {
      return DependsOn.NONE;
    }
    if (!(body.getValue("depends_on") instanceof io.vertx.core.json.JsonArray refs)
        || refs.isEmpty() || refs.size() > MAX_PARENTS) {
      throw InvalidRequest.field("depends_on", "must be an array of 1.." + MAX_PARENTS
          + " task ids (decimal strings), or null");
    }
    java.util.LinkedHashSet<Long> ids = new java.util.LinkedHashSet<>();
    java.util.LinkedHashSet<Integer> items = new java.util.LinkedHashSet<>();
    for (Object ref : refs) {
      if (!(ref instanceof String r)) {
        throw InvalidRequest.field("depends_on", "each element must be a task id as a decimal string, or \"#<index>\" "
            + "of an earlier item in a batch");
      }
      boolean added;
      if (BATCH_REF.matcher(r).matches()) {
        added = items.add(Integer.parseInt(r.substring(1)));
      } else {
        if (!TASK_ID.matcher(r).matches()) {
          throw InvalidRequest.field("depends_on", "\"" + r + "\" is neither a task id (1-19 digits) nor \"#<index>\" "
              + "of an earlier item in a batch");
        }
        java.util.OptionalLong id = TaskIds.parse(r, "depends_on");
        if (id.isEmpty()) {
          throw InvalidRequest.field("depends_on", "no task " + r);
        }
        added = ids.add(id.getAsLong());
      }
      if (!added) {
        throw InvalidRequest.field("depends_on", "\"" + r + "\" is listed twice");
      }
    }
    return new DependsOn(ids.stream().mapToLong(Long::longValue).toArray(),
        items.stream().mapToInt(Integer::intValue).toArray());
  }

  /** Whether {@code body} names {@code field} with a value; {@code depends_on: null} is no dependencies. */
  static boolean isPresent(JsonObject body, String field) {
    return body.containsKey(field) && !(field.equals("depends_on") && body.getValue(field) == null);
  }

  private static long triggerTime(JsonObject body, long receivedAtMs) throws InvalidRequest {
    boolean hasTime = body.containsKey("trigger_time");
    boolean hasDelay = body.containsKey("delay_ms");
    if (hasTime && hasDelay) {
      throw InvalidRequest.field("trigger_time", "give at most one of trigger_time or delay_ms");
    }
    if (hasDelay) {
      Long delay = WholeNumbers.within(body.getValue("delay_ms"), 0, MAX_FUTURE_MS);
      if (delay == null) {
        throw InvalidRequest.field("delay_ms", "must be a whole number of milliseconds, 0.." + MAX_FUTURE_MS);
      }
      return receivedAtMs + delay;
    }
    if (hasTime) {
      Object v = body.getValue("trigger_time");
      if (!(v instanceof String s)) {
        throw InvalidRequest.field("trigger_time", "must be an RFC 3339 date-time string");
      }
      long t;
      try {
        t = Rfc3339.parseMillis(s);
      } catch (DateTimeException | ArithmeticException e) { // a year beyond what an instant can hold
        throw InvalidRequest.field("trigger_time", "must be RFC 3339 with an offset, e.g. 2026-12-01T20:00:00.000Z");
      }
      if (t > receivedAtMs + MAX_FUTURE_MS || t < receivedAtMs - MAX_PAST_MS) {
        throw InvalidRequest.field("trigger_time", "must lie between one year ago and 10 years from now "
            + "(a time in the past runs now)");
      }
      return t;
    }
    return receivedAtMs;
  }

  private static String string(JsonObject body, String field, boolean required) throws InvalidRequest {
    Object v = body.getValue(field);
    if (v == null) {
      if (required) {
        throw InvalidRequest.field(field, "is required");
      }
      return null;
    }
    if (!(v instanceof String s)) {
      throw InvalidRequest.field(field, "must be a string");
    }
    return s;
  }

  private static int integer(JsonObject body, String field, int fallback, int min, int max) throws InvalidRequest {
    Object v = body.getValue(field);
    if (v == null) {
      return fallback;
    }
    Long n = WholeNumbers.within(v, min, max);
    if (n == null) {
      throw InvalidRequest.field(field, "must be a whole number " + min + ".." + max);
    }
    return n.intValue();
  }
}
