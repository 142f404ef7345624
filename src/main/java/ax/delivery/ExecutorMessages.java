package ax.delivery;

import ax.fleet.ExecutorRegistry.Load;
import ax.fleet.ExecutorRegistry.Registration;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and writes the bodies of the executor protocol (README.md, "Executor protocol"). Executors are remote and may be written in
 * any language, so everything read here is validated; a bad message becomes an
 * {@link IllegalArgumentException} whose text is sent back to the executor.
 */
public final class ExecutorMessages {
  private static final Pattern ID = Pattern.compile("^[A-Za-z0-9._:-]{1,64}$");
  private static final Pattern PROCESSOR = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");
  private static final Set<String> POOLS = Set.of("high", "default", "slow");
  private static final int MAX_THREADS_PER_POOL = 4_096;
  private static final int MAX_BUFFER = 100_000;
  private static final int MAX_RESULT_CHARS = 64 * 1024;

  private ExecutorMessages() {
  }

  public static boolean validExecutorId(String id) {
    return id != null && ID.matcher(id).matches();
  }

  public static Registration registration(String executorId, JsonObject body) {
    if (body == null) {
      throw new IllegalArgumentException("register: body must be a JSON object");
    }
    JsonArray procs = body.getJsonArray("processors");
    if (procs == null || procs.isEmpty() || procs.size() > 1_000) {
      throw new IllegalArgumentException("register: processors must be a non-empty array of names");
    }
    Set<String> processors = new LinkedHashSet<>();
    for (Object p : procs) {
      if (!(p instanceof String s) || !PROCESSOR.matcher(s).matches()) {
        throw new IllegalArgumentException("register: processor names are 1-128 of [A-Za-z0-9._:-]");
      }
      processors.add(s);
    }
    JsonObject cap = body.getJsonObject("capacity", new JsonObject().put("high", 8).put("default", 16).put("slow", 8));
    Map<String, Integer> capacity = new HashMap<>();
    for (String pool : cap.fieldNames()) {
      Object v = cap.getValue(pool);
      if (!POOLS.contains(pool) || !(v instanceof Number n) || n.intValue() < 0 || n.intValue() > MAX_THREADS_PER_POOL) {
        throw new IllegalArgumentException("register: capacity maps high/default/slow to 0.." + MAX_THREADS_PER_POOL);
      }
      capacity.put(pool, n.intValue());
    }
    if (capacity.values().stream().mapToInt(Integer::intValue).sum() == 0) {
      throw new IllegalArgumentException("register: capacity must have at least one thread");
    }
    int buffer = intIn(body, "buffer", 256, 0, MAX_BUFFER, "register");
    String zone = body.getValue("zone") instanceof String z && z.length() <= 64 ? z : null;
    return new Registration(executorId, processors, capacity, buffer, zone);
  }

  public static Load load(JsonObject body) {
    if (body == null) {
      throw new IllegalArgumentException("heartbeat: body must be a JSON object");
    }
    return new Load(intIn(body, "free_threads", 0, 0, Integer.MAX_VALUE, "heartbeat"),
        intIn(body, "backlog", 0, 0, Integer.MAX_VALUE, "heartbeat"),
        number(body, "cpu_load"), (long) number(body, "executed"), (long) number(body, "failed"),
        number(body, "mean_duration_ms"));
  }

  /** One outcome reported by an executor. {@code resultJson} is JSON text or null. */
  public record Result(long taskId, int attempt, int shardIndex, boolean success, String resultJson, String error) {
  }

  /** Parsed results, plus the ids of items too malformed to apply (they are refused). */
  public record Results(List<Result> results, List<String> malformed) {
  }

  public static Results results(JsonObject body) {
    JsonArray items = body == null ? null : body.getJsonArray("results");
    if (items == null || items.size() > 10_000) {
      throw new IllegalArgumentException("result: results must be an array of at most 10000 items");
    }
    List<Result> out = new ArrayList<>(items.size());
    List<String> malformed = new ArrayList<>();
    for (Object o : items) {
      if (!(o instanceof JsonObject r)) {
        malformed.add("?");
        continue;
      }
      Object rawId = r.getValue("task_id");
      try {
        long id = Long.parseLong(String.valueOf(rawId));
        int attempt = intIn(r, "attempt", -1, 1, Integer.MAX_VALUE, "result");
        String status = r.getString("status");
        if (!"SUCCESS".equals(status) && !"FAILED".equals(status)) {
          throw new IllegalArgumentException("status must be SUCCESS or FAILED");
        }
        String result = r.getValue("result") == null ? null : Json.encode(r.getValue("result"));
        if (result != null && result.length() > MAX_RESULT_CHARS) {
          result = null;
          status = "FAILED";
          r.put("error", "result larger than 64 KiB");
        }
        String error = r.getValue("error") == null ? null : truncate(String.valueOf(r.getValue("error")), 2_000);
        out.add(new Result(id, attempt, r.getInteger("shard_index", 0), "SUCCESS".equals(status), result,
            "SUCCESS".equals(status) ? null : (error == null ? "failed (no error given)" : error)));
      } catch (RuntimeException e) {
        malformed.add(String.valueOf(rawId));
      }
    }
    return new Results(out, malformed);
  }

  /** The pool an executor should run a task on, when its handler does not say. */
  public static String poolFor(ReadyTask t) {
    if (t.priority() >= 7) {
      return "high";
    }
    return t.timeoutMs() > 60_000 ? "slow" : "default";
  }

  public static JsonObject dispatch(long epoch, List<ReadyTask> tasks, List<Integer> attempts) {
    JsonArray items = new JsonArray();
    for (int i = 0; i < tasks.size(); i++) {
      ReadyTask t = tasks.get(i);
      items.add(new JsonObject()
          .put("task_id", Long.toString(t.taskId()))
          .put("attempt", attempts.get(i))
          .put("processor", t.processor())
          .put("task_type", t.taskType())
          .put("payload", t.payloadJson() == null ? null : Json.decodeValue(t.payloadJson()))
          .put("priority", t.priority())
          .put("pool", poolFor(t))
          .put("timeout_ms", t.timeoutMs())
          .put("trigger_time", t.triggerTimeMs())
          .put("shard_index", t.shardIndex())
          .put("shard_total", t.shardTotal()));
    }
    return new JsonObject().put("epoch", epoch).put("tasks", items);
  }

  /** The accepted and rejected ids of an ack; ids not named in either count as rejected. */
  public record Ack(Set<Long> accepted) {
  }

  public static Ack ack(Object body) {
    if (!(body instanceof JsonObject o)) {
      throw new IllegalArgumentException("ack: body must be a JSON object");
    }
    Set<Long> accepted = new java.util.HashSet<>();
    JsonArray a = o.getJsonArray("accepted", new JsonArray());
    for (Object id : a) {
      try {
        accepted.add(Long.parseLong(String.valueOf(id)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("ack: task ids are decimal strings");
      }
    }
    return new Ack(accepted);
  }

  public static JsonObject parse(Object body, String what) {
    if (body instanceof JsonObject o) {
      return o;
    }
    if (body instanceof String s) {
      try {
        return new JsonObject(s);
      } catch (DecodeException e) {
        throw new IllegalArgumentException(what + ": body is not a JSON object");
      }
    }
    throw new IllegalArgumentException(what + ": body must be a JSON object");
  }

  private static int intIn(JsonObject o, String field, int dflt, int min, int max, String what) {
    Object v = o.getValue(field);
    if (v == null && dflt >= min) {
      return dflt;
    }
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < min
        || n.longValue() > max) {
      throw new IllegalArgumentException(what + ": " + field + " must be an integer in " + min + ".." + max);
    }
    return n.intValue();
  }

  private static double number(JsonObject o, String field) {
    return o.getValue(field) instanceof Number n && Double.isFinite(n.doubleValue()) ? Math.max(0, n.doubleValue()) : 0;
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max);
  }
}
