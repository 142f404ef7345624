package ax.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;

/**
 * JSON that the task store can hold and give back, for values that come from outside the API's
 * request checks — a target's response body, an executor's result. PostgreSQL's jsonb refuses a NUL
 * character (the whole outcome write would fail, for every task in its batch), and what nests deeper
 * than the client encoder allows could be stored but never read. {@link #storable} keeps such a value
 * as a JSON string of its text instead, with what cannot be stored replaced. Pure: Jackson's streaming
 * parser only.
 */
public final class StoredJson {
  /** Nesting a stored value may have (the API's request limit is 72; results get a little more room). */
  public static final int MAX_DEPTH = 100;
  /** Characters a number may take written out in full (PostgreSQL writes numbers out in full). */
  public static final int MAX_NUMBER_CHARS = 1000;

  private static final JsonFactory JSON = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
      .build();

  private StoredJson() {
  }

  /**
   * {@code json} itself when it is one JSON value the store can hold and give back; otherwise a JSON
   * string of its text with NUL characters and unpaired surrogates replaced by U+FFFD. Null stays null.
   */
  public static String storable(String json) {
    if (json == null || isStorable(json)) {
      return json;
    }
    return asString(json);
  }

  /** {@code text} as a JSON string value, with NUL characters and unpaired surrogates replaced by U+FFFD. */
  public static String asString(String text) {
    return quote(replaceUnstorable(text));
  }

  /** One JSON value, at most {@link #MAX_DEPTH} deep, no NUL or unpaired surrogate, numbers of sane length. */
  public static boolean isStorable(String json) {
    try (JsonParser p = JSON.createParser(json)) {
      int depth = 0;
      JsonToken t = p.nextToken();
      if (t == null) {
        return false;
      }
      boolean rootDone = false;
      while (t != null) {
        if (rootDone) {
          return false; // a second value
        }
        switch (t) {
          case START_OBJECT, START_ARRAY -> depth++;
          case END_OBJECT, END_ARRAY -> depth--;
          case FIELD_NAME -> {
            if (!clean(p.currentName())) {
              return false;
            }
          }
          case VALUE_STRING -> {
            if (!clean(p.getText())) {
              return false;
            }
          }
          case VALUE_NUMBER_FLOAT -> {
            if (writtenOutLength(p.getDecimalValue()) > MAX_NUMBER_CHARS) {
              return false;
            }
          }
          default -> {
          }
        }
        rootDone = depth == 0;
        t = p.nextToken();
      }
      return true;
    } catch (IOException | NumberFormatException | ArithmeticException e) {
      return false; // not JSON, too deep, a number too long or with an exponent no decimal holds
    }
  }

  /** How many characters {@code d} takes written out without an exponent. */
  public static long writtenOutLength(BigDecimal d) {
    long digits = d.precision();
    long scale = d.scale();
    return (d.signum() < 0 ? 1 : 0) + (scale <= 0 ? digits - scale : scale < digits ? digits + 1 : scale + 2);
  }

  /** No NUL character and no unpaired surrogate: text PostgreSQL stores as it is. */
  public static boolean clean(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        return false;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static String replaceUnstorable(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        b.append(c).append(text.charAt(++i));
      } else if (c == 0 || Character.isSurrogate(c)) {
        b.append('\uFFFD');
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static String quote(String text) {
    StringWriter out = new StringWriter(text.length() + 16);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeString(text);
    } catch (IOException e) {
      throw new IllegalStateException("writing to a string cannot fail", e);
    }
    return out.toString();
  }
}
