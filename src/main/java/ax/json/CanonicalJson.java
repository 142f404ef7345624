package ax.json;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One text per JSON value, whatever its spelling: object members sorted by name (UTF-16 code units, as
 * RFC 8785 orders them), no whitespace, numbers by value ({@code 1}, {@code 1.0}, {@code 1e0} and
 * {@code 10E-1} are all {@code 1}; {@code -0} is {@code 0}), strings escaped one way. Two payloads a
 * receiver cannot tell apart give the same text — which is what the fingerprint rule of API.md
 * ("identical payload (canonical JSON)") compares.
 *
 * <p>Numbers are written as exact decimals (BigDecimal without trailing zeros) rather than RFC 8785's
 * double formatting: ax keeps every digit of a payload (see {@link JsonText}), so two numbers that
 * differ in the 20th digit are different payloads here.
 */
public final class CanonicalJson {

  private CanonicalJson() {
  }

  /** {@code value}: JsonObject, JsonArray, Map, List, String, Number, Boolean or null. */
  public static String of(Object value) {
    StringBuilder out = new StringBuilder(64);
    write(value, out);
    return out.toString();
  }

  @SuppressWarnings("unchecked")
  private static void write(Object value, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof JsonObject o) {
      writeObject(o.getMap(), out);
    } else if (value instanceof Map<?, ?> m) {
      writeObject((Map<String, Object>) m, out);
    } else if (value instanceof JsonArray a) {
      writeArray(a.getList(), out);
    } else if (value instanceof List<?> l) {
      writeArray(l, out);
    } else if (value instanceof String s) {
      JsonStrings.quote(out, s);
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Number n) {
      out.append(number(n));
    } else {
      throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
    }
  }

  private static void writeObject(Map<String, Object> members, StringBuilder out) {
    List<String> names = new ArrayList<>(members.keySet());
    names.sort(null); // String.compareTo: UTF-16 code units
    out.append('{');
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      JsonStrings.quote(out, names.get(i));
      out.append(':');
      write(members.get(names.get(i)), out);
    }
    out.append('}');
  }

  private static void writeArray(List<?> items, StringBuilder out) {
    out.append('[');
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      write(items.get(i), out);
    }
    out.append(']');
  }

  static String number(Number n) {
    BigDecimal d;
    if (n instanceof BigDecimal b) {
      d = b;
    } else if (n instanceof BigInteger i) {
      d = new BigDecimal(i);
    } else if (n instanceof Double || n instanceof Float) {
      double v = n.doubleValue();
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        throw new IllegalArgumentException("not a JSON number: " + v);
      }
      d = new BigDecimal(Double.toString(v)); // the shortest decimal that reads back as v
    } else {
      return Long.toString(n.longValue()); // Integer, Long, Short, Byte: already canonical
    }
    if (d.signum() == 0) {
      return "0";
    }
    return d.stripTrailingZeros().toPlainString();
  }
}
