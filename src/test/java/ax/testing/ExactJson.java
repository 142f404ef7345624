package ax.testing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * JSON read without loss, to tell what a client actually sent from what a server made of it: numbers
 * as {@link BigDecimal} (never a double, which would turn {@code 1e400} into infinity and
 * {@code 0.1000000000000000000001} into {@code 0.1}), objects as ordered maps, a key twice refused.
 * {@link #same} compares two values by meaning: numbers by value ({@code 1.0} = {@code 1} = {@code 1e0}),
 * objects regardless of member order.
 */
public final class ExactJson {
  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(100_000)
          .maxNumberLength(100_000).build())
      .build();

  private static final JsonFactory LENIENT = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(100_000)
          .maxNumberLength(100_000).build())
      .build();

  private ExactJson() {
  }

  /** The single JSON value of {@code bytes} (UTF-8, or what Jackson detects); throws when it is not exactly one. */
  public static Object decode(byte[] bytes) throws IOException {
    return decode(JSON, bytes);
  }

  /**
   * As {@link #decode}, but a key twice in one object keeps its last value, as the server reads a body
   * it refuses only in part (a batch element with a key twice is refused; the others are stored).
   */
  public static Object decodeLastKeyWins(byte[] bytes) throws IOException {
    return decode(LENIENT, bytes);
  }

  private static Object decode(JsonFactory factory, byte[] bytes) throws IOException {
    try (JsonParser p = factory.createParser(bytes)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new IOException("no JSON value");
      }
      Object v = read(p, t);
      if (p.nextToken() != null) {
        throw new IOException("trailing content after the JSON value");
      }
      return v;
    }
  }

  private static Object read(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT: {
        Map<String, Object> m = new LinkedHashMap<>();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          m.put(name, read(p, p.nextToken()));
        }
        return m;
      }
      case START_ARRAY: {
        List<Object> l = new ArrayList<>();
        for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
          l.add(read(p, v));
        }
        return l;
      }
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        return new BigDecimal(p.getBigIntegerValue());
      case VALUE_NUMBER_FLOAT:
        return p.getDecimalValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new IOException("unexpected token " + t);
    }
  }

  /**
   * Whether {@code sent} (from {@link #decode}) and {@code got} (from {@link #decode}, or a Vert.x
   * value: JsonObject, JsonArray, Number, String, Boolean, null) mean the same JSON value.
   */
  public static boolean same(Object sent, Object got) {
    if (got instanceof JsonObject o) {
      got = o.getMap();
    } else if (got instanceof JsonArray a) {
      got = a.getList();
    }
    if (sent == null || got == null) {
      return sent == got;
    }
    if (sent instanceof Map<?, ?> ms) {
      if (!(got instanceof Map<?, ?> mg) || ms.size() != mg.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : ms.entrySet()) {
        if (!mg.containsKey(e.getKey()) || !same(e.getValue(), mg.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (sent instanceof List<?> ls) {
      if (!(got instanceof List<?> lg) || ls.size() != lg.size()) {
        return false;
      }
      for (int i = 0; i < ls.size(); i++) {
        if (!same(ls.get(i), lg.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (sent instanceof Number ns) {
      BigDecimal a = exact(ns);
      BigDecimal b = got instanceof Number ng ? exact(ng) : null;
      return a != null && b != null && a.compareTo(b) == 0;
    }
    return Objects.equals(sent, got);
  }

  /** A number's exact value; null for infinity and NaN, which JSON cannot carry. */
  public static BigDecimal exact(Number n) {
    if (n instanceof BigDecimal d) {
      return d;
    }
    if (n instanceof BigInteger b) {
      return new BigDecimal(b);
    }
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      return Double.isFinite(d) ? new BigDecimal(Double.toString(d)) : null;
    }
    return BigDecimal.valueOf(n.longValue());
  }
}
