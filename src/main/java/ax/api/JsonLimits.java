package ax.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What a request body may contain before it is decoded, checked in one streaming pass: well-formed
 * UTF-8 JSON, no key twice in one object (two parsers could otherwise read two different requests from
 * the same signed bytes), at most {@link #MAX_DEPTH} levels of nesting, and no NUL character or lone
 * surrogate in a key or a string (PostgreSQL cannot store them: the request would fail late, as a 500).
 *
 * <p>Malformed JSON and too deep a nesting refuse the whole body. A key twice or a character that
 * cannot be stored is a {@link Flaw} of one place, reported with its path ({@code tasks.3.payload.a}),
 * so that a batch can refuse only the element it is in.
 */
final class JsonLimits {
  /** Nesting of the whole body: a batch's wrapper and a task's fields around a payload of {@link #MAX_PAYLOAD_DEPTH}. */
  static final int MAX_DEPTH = 72;
  /** Nesting of a task's payload (openapi.yaml, {@code payload}). */
  static final int MAX_PAYLOAD_DEPTH = 64;
  /** Characters a number may take written out in full; every double fits (at most 326). */
  static final int MAX_NUMBER_CHARS = 1000;

  private static final JsonFactory JSON = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH + 1).build())
      .build();

  /** One place in the body that breaks a rule: {@code path} as {@code a.0.b} ("body" for the top). */
  record Flaw(String path, String why) {
    InvalidRequest refusal() {
      return InvalidRequest.field(path, why);
    }

    /** The batch element this flaw is in ({@code tasks.<n>...}), or -1 when it is outside every element. */
    int batchIndex() {
      if (!path.startsWith("tasks.")) {
        return -1;
      }
      int end = path.indexOf('.', 6);
      try {
        return Integer.parseInt(end < 0 ? path.substring(6) : path.substring(6, end));
      } catch (NumberFormatException e) {
        return -1;
      }
    }
  }

  private JsonLimits() {
  }

  /** The body's value (a JsonObject, JsonArray, String, Number, Boolean or null) and its flaws. */
  record Read(Object value, List<Flaw> flaws) {
  }

  /**
   * Reads the body in one pass, refusing it whole when it is not strict UTF-8 JSON (one value, no byte
   * order mark, no raw NUL byte) or nests too deep. Numbers are kept exactly: integers as Integer,
   * Long or BigInteger, the rest as BigDecimal — never a double, which would turn {@code 1e400} into
   * infinity and {@code 5.00000000000000000001} into a whole 5.
   *
   * @return the value and the places that break a rule (a key twice, a character that cannot be
   *         stored, a number too long written out), in order; with a key twice the last one counts
   * @throws InvalidRequest {@code validation_failed} naming what is wrong with the body as a whole
   */
  static Read read(byte[] body) throws InvalidRequest {
    int invalid = Utf8.firstInvalid(body);
    if (invalid >= 0) {
      throw InvalidRequest.field("body", "not UTF-8 (byte " + invalid + ")");
    }
    if (body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF) {
      throw InvalidRequest.field("body", "starts with a byte order mark; send UTF-8 JSON without one");
    }
    for (int i = 0; i < body.length; i++) {
      if (body[i] == 0) { // never in JSON text; the parser would take it for UTF-16 or UTF-32
        throw InvalidRequest.field("body", "contains a NUL byte (byte " + i + ")");
      }
    }
    List<Flaw> flaws = new ArrayList<>();
    Deque<Object> open = new ArrayDeque<>(); // JsonObject or JsonArray being filled
    Deque<String> keys = new ArrayDeque<>(); // the key each open object's next value goes under
    try (JsonParser p = JSON.createParser(body)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw InvalidRequest.field("body", "empty");
      }
      Object root = null;
      while (t != null) {
        Object value = null;
        boolean complete = true;
        switch (t) {
          case START_OBJECT, START_ARRAY -> {
            if (open.size() >= MAX_DEPTH) {
              throw InvalidRequest.field(pointer(p), "nested more than " + MAX_DEPTH + " levels deep");
            }
            open.push(t == JsonToken.START_OBJECT ? new JsonObject() : new JsonArray());
            complete = false;
          }
          case END_OBJECT, END_ARRAY -> value = open.pop();
          case FIELD_NAME -> {
            String key = p.currentName();
            if (((JsonObject) open.peek()).containsKey(key)) {
              flaws.add(new Flaw(pointer(p), "the key appears twice in one object"));
            }
            storable(key, p, "a key", flaws);
            keys.push(key);
            complete = false;
          }
          case VALUE_STRING -> {
            value = p.getText();
            storable((String) value, p, "a string", flaws);
          }
          case VALUE_NUMBER_INT -> value = switch (p.getNumberType()) {
            case INT -> p.getIntValue();
            case LONG -> p.getLongValue();
            default -> p.getBigIntegerValue();
          };
          case VALUE_NUMBER_FLOAT -> value = decimal(p, flaws);
          case VALUE_TRUE -> value = Boolean.TRUE;
          case VALUE_FALSE -> value = Boolean.FALSE;
          case VALUE_NULL -> value = null;
          default -> throw InvalidRequest.field(pointer(p), "not JSON");
        }
        if (complete) {
          if (open.isEmpty()) {
            root = value;
            if (p.nextToken() != null) {
              throw InvalidRequest.field("body", "more than one JSON value");
            }
            break;
          }
          Object parent = open.peek();
          if (parent instanceof JsonObject o) {
            o.put(keys.pop(), value);
          } else {
            ((JsonArray) parent).add(value);
          }
        }
        t = p.nextToken();
      }
      return new Read(root, flaws);
    } catch (InvalidRequest e) {
      throw e;
    } catch (JsonParseException e) {
      String why = e.getOriginalMessage();
      if (why != null && why.contains("nesting depth")) {
        throw InvalidRequest.field("body", "nested more than " + MAX_DEPTH + " levels deep");
      }
      throw InvalidRequest.field("body", "not valid JSON: " + (why == null ? "parse error" : why));
    } catch (IOException e) {
      throw InvalidRequest.field("body", "not valid JSON" + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }

  /**
   * A number with a fraction or an exponent, exactly. One that would take more than
   * {@link #MAX_NUMBER_CHARS} characters written out in full (as PostgreSQL writes it back) is a flaw:
   * {@code 1e100000} is 8 bytes in and 100 001 out, for every read and every dispatch.
   */
  private static BigDecimal decimal(JsonParser p, List<Flaw> flaws) throws IOException {
    BigDecimal d;
    try {
      d = p.getDecimalValue();
    } catch (NumberFormatException | ArithmeticException beyondADecimal) { // 1e40018446744073709551621
      flaws.add(new Flaw(pointer(p), "a number whose exponent no decimal can hold"));
      return BigDecimal.ZERO;
    }
    long digits = d.precision();
    long scale = d.scale();
    long written = scale <= 0 ? digits - scale : scale < digits ? digits + 1 : scale + 2;
    if (written > MAX_NUMBER_CHARS) {
      flaws.add(new Flaw(pointer(p), "a number " + written + " characters long written out (at most "
          + MAX_NUMBER_CHARS + ")"));
      return BigDecimal.ZERO;
    }
    return d;
  }

  /** Nesting depth of an already decoded value (1 for a scalar inside nothing, +1 per object or array). */
  static int depth(Object value) {
    if (value instanceof JsonObject o) {
      int max = 0;
      for (String k : o.fieldNames()) {
        max = Math.max(max, depth(o.getValue(k)));
      }
      return max + 1;
    }
    if (value instanceof JsonArray a) {
      int max = 0;
      for (Object v : a) {
        max = Math.max(max, depth(v));
      }
      return max + 1;
    }
    return 0;
  }

  private static void storable(String text, JsonParser p, String what, List<Flaw> flaws) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        flaws.add(new Flaw(pointer(p), what + " contains a NUL character (\\u0000)"));
        return;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        flaws.add(new Flaw(pointer(p), what + " contains a lone surrogate (not Unicode text)"));
        return;
      }
    }
  }

  private static String pointer(JsonParser p) {
    String path = p.getParsingContext().pathAsPointer().toString();
    return path.isEmpty() ? "body" : path.substring(1).replace('/', '.');
  }
}
