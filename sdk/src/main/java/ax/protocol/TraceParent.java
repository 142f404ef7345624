package ax.protocol;

/**
 * The W3C Trace Context {@code traceparent} value (https://www.w3.org/TR/trace-context/): pure checks,
 * no OpenTelemetry dependency, so the protocol package and the SDK stay vertx-core only. A dispatched
 * task may carry one (the scheduler's dispatch span); an executor runs the task under it and sends it back
 * with the result. Anything that is not a valid traceparent is treated as absent, never as an error: a
 * trace must not be able to fail a task.
 *
 * <pre>
 *   00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01
 *   ^  ^ trace-id (32 hex, not all 0)   ^ parent-id (16 hex, not all 0)
 *   version (2 hex, not ff)                              ^ flags (01 = sampled)
 * </pre>
 */
public final class TraceParent {
  /** Length of a version-00 value; later versions may append {@code -…} fields after it. */
  public static final int LENGTH = 55;
  /** W3C allows tracestate up to 512 characters; a longer one is dropped rather than cut. */
  public static final int MAX_TRACESTATE = 512;

  private TraceParent() {
  }

  /** True when {@code value} is a traceparent a W3C parser accepts (version 00, or a later one as 00). */
  public static boolean isValid(String value) {
    if (value == null || value.length() < LENGTH) {
      return false;
    }
    if (!hex(value, 0, 2) || value.startsWith("ff") || value.charAt(2) != '-' || value.charAt(35) != '-'
        || value.charAt(52) != '-' || !hex(value, 3, 35) || !hex(value, 36, 52) || !hex(value, 53, 55)) {
      return false;
    }
    if (value.startsWith("00") ? value.length() != LENGTH : value.length() > LENGTH && value.charAt(LENGTH) != '-') {
      return false;
    }
    return !zeros(value, 3, 35) && !zeros(value, 36, 52);
  }

  /** {@code value} if it is valid, else null: what a reader of a message keeps. */
  public static String orNull(Object value) {
    return value instanceof String s && isValid(s) ? s : null;
  }

  /** A tracestate worth passing on: a string of at most {@link #MAX_TRACESTATE} characters, else null. */
  public static String stateOrNull(Object value) {
    return value instanceof String s && !s.isEmpty() && s.length() <= MAX_TRACESTATE ? s : null;
  }

  /** The 32 hex characters of the trace id of a valid traceparent. */
  public static String traceId(String traceparent) {
    return traceparent.substring(3, 35);
  }

  /** The 16 hex characters of the span (parent) id of a valid traceparent. */
  public static String spanId(String traceparent) {
    return traceparent.substring(36, 52);
  }

  /** Whether the sampled flag is set. */
  public static boolean sampled(String traceparent) {
    return (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
  }

  /** A version-00 traceparent; ids are lower-case hex of the right length (not checked further). */
  public static String format(String traceId, String spanId, boolean sampled) {
    return "00-" + traceId + "-" + spanId + (sampled ? "-01" : "-00");
  }

  private static boolean hex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  private static boolean zeros(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}
