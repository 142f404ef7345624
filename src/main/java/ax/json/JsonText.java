package ax.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteFeature;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * JSON text to and from the values Vert.x code works with (JsonObject, JsonArray, String, Number,
 * Boolean, null), without losing a digit: numbers are read as
 * Integer, Long, BigInteger or BigDecimal (Vert.x's own decoding reads them as doubles), and written
 * out in full, as PostgreSQL's jsonb writes them back — so the size checked at submission is the size
 * stored and served.
 */
public final class JsonText {
  /** Nesting {@link #parse} takes; well under what an encoder takes (1 000), wrappers included. */
  public static final int MAX_DEPTH = 200;

  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
      // stored JSON was checked on the way in (request limits: 72, StoredJson: 100); rows older than
      // those checks may nest deeper than an encoder goes, and are served as text (parseOrText)
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
      .build();

  private JsonText() {
  }

  /** {@code value} (JsonObject, JsonArray, String, Number, Boolean or null) as JSON text. */
  public static String encode(Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      JacksonCodec.encodeJson(value, g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * {@link #parse}, or the text itself as a string value when it does not parse within
   * {@link #MAX_DEPTH}: a row stored before today's checks is still read and dispatched, never a
   * request that hangs or a task that cycles.
   */
  public static Object parseOrText(String text) {
    try {
      return parse(text);
    } catch (RuntimeException tooDeepOrBroken) {
      return text;
    }
  }

  /** Stored JSON text as a value, numbers exact; null for SQL NULL. */
  public static Object parse(String text) {
    if (text == null) {
      return null;
    }
    Deque<Object> open = new ArrayDeque<>();
    Deque<String> keys = new ArrayDeque<>();
    try (JsonParser p = JSON.createParser(text)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        Object value;
        switch (t) {
          case START_OBJECT -> {
            open.push(new JsonObject());
            continue;
          }
          case START_ARRAY -> {
            open.push(new JsonArray());
            continue;
          }
          case FIELD_NAME -> {
            keys.push(p.currentName());
            continue;
          }
          case END_OBJECT, END_ARRAY -> value = open.pop();
          case VALUE_STRING -> value = p.getText();
          case VALUE_NUMBER_INT -> value = switch (p.getNumberType()) {
            case INT -> p.getIntValue();
            case LONG -> p.getLongValue();
            default -> p.getBigIntegerValue();
          };
          case VALUE_NUMBER_FLOAT -> value = p.getDecimalValue();
          case VALUE_TRUE -> value = Boolean.TRUE;
          case VALUE_FALSE -> value = Boolean.FALSE;
          default -> value = null;
        }
        if (open.isEmpty()) {
          return value;
        }
        if (open.peek() instanceof JsonObject o) {
          o.put(keys.pop(), value);
        } else {
          ((JsonArray) open.peek()).add(value);
        }
      }
      throw new IllegalStateException("stored JSON ended early: " + text.length() + " characters");
    } catch (IOException e) {
      throw new UncheckedIOException("stored JSON does not parse", e);
    }
  }
}
