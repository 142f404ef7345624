package ax.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/** Reading fields of a received message: strict where the protocol says so, lenient where it is optional. */
final class Fields {
  private Fields() {
  }

  static JsonObject object(Object body, String message) {
    if (body instanceof JsonObject o) {
      return o;
    }
    if (body instanceof String s) {
      try {
        return new JsonObject(s);
      } catch (RuntimeException e) {
        throw new ProtocolException(message + ": body is not a JSON object");
      }
    }
    throw new ProtocolException(message + ": body must be a JSON object");
  }

  /** An integer in {@code [min, max]}; {@code dflt} when absent (if {@code dflt < min} the field is required). */
  static int intIn(JsonObject o, String field, int dflt, int min, int max, String message) {
    Object v = o.getValue(field);
    if (v == null && dflt >= min) {
      return dflt;
    }
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < min
        || n.longValue() > max) {
      throw new ProtocolException(message + ": " + field + " must be an integer in " + min + ".." + max);
    }
    return n.intValue();
  }

  /** A finite non-negative number, 0 when absent or anything else. */
  static double nonNegative(JsonObject o, String field) {
    return o.getValue(field) instanceof Number n && Double.isFinite(n.doubleValue())
        ? Math.max(0, n.doubleValue()) : 0;
  }

  static long longOr(JsonObject o, String field, long dflt) {
    return o.getValue(field) instanceof Number n ? n.longValue() : dflt;
  }

  static int intOr(JsonObject o, String field, int dflt) {
    return o.getValue(field) instanceof Number n ? n.intValue() : dflt;
  }

  /** Decimal task ids (they exceed 2^53, so they travel as strings; numbers are read as their exact text). */
  static String idOf(Object value) {
    return value instanceof String || value instanceof Number ? value.toString() : null;
  }

  static List<String> ids(JsonArray array) {
    List<String> out = new ArrayList<>(array == null ? 0 : array.size());
    if (array != null) {
      for (Object v : array) {
        String id = idOf(v);
        if (id != null) {
          out.add(id);
        }
      }
    }
    return out;
  }

  static String truncate(String s, int max) {
    return s == null || s.length() <= max ? s : s.substring(0, max);
  }
}
