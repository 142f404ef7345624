package ax.alert;

import java.util.Map;

/** The little JSON the alert formats need, written without a library (the core stays free of Vert.x). */
final class Json {
  private Json() {
  }

  static String string(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
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
