package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Body of {@link ExecutorAddresses#REGISTER}: who the executor is, what it serves and how much it can
 * hold. {@code capacity} is worker threads per pool; {@code buffer} is how many acked tasks it can hold
 * beyond the running ones.
 */
public record Registration(String executorId, List<String> processors, Map<String, Integer> capacity, int buffer,
                           String zone, String sdk) {
  public static final int MAX_PROCESSORS = 1_000;
  public static final int MAX_THREADS_PER_POOL = 4_096;
  public static final int MAX_BUFFER = 100_000;
  public static final int DEFAULT_BUFFER = 256;
  public static final int MAX_ZONE_CHARS = 64;
  private static final String MESSAGE = "register";

  public Registration {
    processors = List.copyOf(processors);
    capacity = Map.copyOf(capacity);
  }

  /** The sum of worker threads over all pools. */
  public int threads() {
    return capacity.values().stream().mapToInt(Integer::intValue).sum();
  }

  public JsonObject toJson() {
    JsonObject cap = new JsonObject();
    for (String pool : PoolRule.NAMES) {
      if (capacity.containsKey(pool)) {
        cap.put(pool, capacity.get(pool));
      }
    }
    JsonObject o = new JsonObject().put("executor_id", executorId).put("processors", new JsonArray(processors))
        .put("capacity", cap).put("buffer", buffer);
    if (zone != null) {
      o.put("zone", zone);
    }
    if (sdk != null) {
      o.put("sdk", sdk);
    }
    return o;
  }

  /**
   * Reads and validates a register body. Defaults: capacity high 8 / default 16 / slow 8, buffer 256;
   * a zone that is not a short string is ignored.
   */
  public static Registration fromJson(Object body) {
    JsonObject o = Fields.object(body, MESSAGE);
    String executorId = o.getValue("executor_id") instanceof String s ? s : null;
    if (!Names.isExecutorId(executorId)) {
      throw new ProtocolException(MESSAGE + ": executor_id must be 1-" + Names.EXECUTOR_ID_MAX
          + " of [A-Za-z0-9._:-]");
    }
    JsonArray procs = o.getValue("processors") instanceof JsonArray a ? a : null;
    if (procs == null || procs.isEmpty() || procs.size() > MAX_PROCESSORS) {
      throw new ProtocolException(MESSAGE + ": processors must be a non-empty array of at most " + MAX_PROCESSORS
          + " names");
    }
    Set<String> processors = new LinkedHashSet<>();
    for (Object p : procs) {
      if (!(p instanceof String s) || !Names.isProcessor(s)) {
        throw new ProtocolException(MESSAGE + ": processor names are 1-" + Names.PROCESSOR_MAX + " of [A-Za-z0-9._:-]");
      }
      processors.add(s);
    }
    Object rawCapacity = o.getValue("capacity");
    JsonObject cap = rawCapacity == null ? new JsonObject().put(PoolRule.HIGH, 8).put(PoolRule.DEFAULT, 16)
        .put(PoolRule.SLOW, 8) : rawCapacity instanceof JsonObject c ? c : null;
    if (cap == null) {
      throw new ProtocolException(MESSAGE + ": capacity must be an object of pool sizes");
    }
    Map<String, Integer> capacity = new LinkedHashMap<>();
    for (String pool : cap.fieldNames()) {
      Object v = cap.getValue(pool);
      if (!PoolRule.NAMES.contains(pool) || !(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
          || n.intValue() < 0 || n.intValue() > MAX_THREADS_PER_POOL) {
        throw new ProtocolException(MESSAGE + ": capacity maps high/default/slow to 0.." + MAX_THREADS_PER_POOL);
      }
      capacity.put(pool, n.intValue());
    }
    if (capacity.values().stream().mapToInt(Integer::intValue).sum() == 0) {
      throw new ProtocolException(MESSAGE + ": capacity must have at least one thread");
    }
    int buffer = Fields.intIn(o, "buffer", DEFAULT_BUFFER, 0, MAX_BUFFER, MESSAGE);
    String zone = o.getValue("zone") instanceof String z && z.length() <= MAX_ZONE_CHARS ? z : null;
    String sdk = o.getValue("sdk") instanceof String s && s.length() <= 64 ? s : null;
    return new Registration(executorId, List.copyOf(processors), capacity, buffer, zone, sdk);
  }
}
