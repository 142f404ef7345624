package ax.json;

/**
 * JSON strings written by hand, one way everywhere: the log lines (ax.logging), the alert messages
 * (ax.alert) and canonical JSON ({@link CanonicalJson}). Pure: no Vert.x, no Jackson.
 */
public final class JsonStrings {
  private JsonStrings() {
  }

  /**
   * Appends {@code s} as a JSON string: the two-character escapes where JSON has them, a six-character
   * escape for other control characters and for a surrogate that is not half of a pair.
   */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || unpairedSurrogate(s, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  /** A surrogate that is not half of a pair: written as an escape, or UTF-8 output would turn it into '?'. */
  private static boolean unpairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }
}
