package ax.alert;

import ax.json.JsonStrings;

import java.util.Map;

/** The little JSON the alert formats need, written without a library (the core stays free of Vert.x). */
final class Json {
  private Json() {
  }

  static String string(String s) {
    return s == null ? "null" : JsonStrings.quote(new StringBuilder(s.length() + 2), s).toString();
  }

  static String number(Double d) {
    if (d == null || d.isNaN() || d.isInfinite()) {
      return "null";
    }
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : Double.toString(d);
  }

  static String object(Map<String, String> fields) {
    StringBuilder b = new StringBuilder("{");
    fields.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append(string(k)).append(':').append(string(v)));
    return b.append('}').toString();
  }
}
