package ax.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

  /**
   * Checks the body, refusing it whole when it is not UTF-8 JSON or nests too deep.
   *
   * @return the places that break a rule (a key twice, a character that cannot be stored), in order
   * @throws InvalidRequest {@code validation_failed} naming what is wrong with the body as a whole
   */
  static List<Flaw> check(byte[] body) throws InvalidRequest {
    List<Flaw> flaws = new ArrayList<>();
    Deque<Set<String>> keysOfOpenObjects = new ArrayDeque<>();
    try (JsonParser p = JSON.createParser(body)) {
      int depth = 0;
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        switch (t) {
          case START_OBJECT, START_ARRAY -> {
            if (++depth > MAX_DEPTH) {
              throw InvalidRequest.field(pointer(p), "nested more than " + MAX_DEPTH + " levels deep");
            }
            if (t == JsonToken.START_OBJECT) {
              keysOfOpenObjects.push(new HashSet<>());
            }
          }
          case END_OBJECT -> {
            depth--;
            keysOfOpenObjects.pop();
          }
          case END_ARRAY -> depth--;
          case FIELD_NAME -> {
            String key = p.currentName();
            if (!keysOfOpenObjects.peek().add(key)) {
              flaws.add(new Flaw(pointer(p), "the key appears twice in one object"));
            }
            storable(key, p, "a key", flaws);
          }
          case VALUE_STRING -> storable(p.getText(), p, "a string", flaws);
          default -> {
          }
        }
      }
      return flaws;
    } catch (InvalidRequest e) {
      throw e;
    } catch (JsonParseException e) {
      String why = e.getOriginalMessage();
      if (why != null && why.contains("nesting depth")) {
        throw InvalidRequest.field("body", "nested more than " + MAX_DEPTH + " levels deep");
      }
      throw InvalidRequest.field("body", "not valid UTF-8 JSON: " + (why == null ? "parse error" : why));
    } catch (IOException e) {
      throw InvalidRequest.field("body", "not valid UTF-8 JSON");
    }
  }

  /** Nesting depth of an already decoded value (1 for a scalar inside nothing, +1 per object or array). */
  static int depth(Object value) {
    if (value instanceof io.vertx.core.json.JsonObject o) {
      int max = 0;
      for (String k : o.fieldNames()) {
        max = Math.max(max, depth(o.getValue(k)));
      }
      return max + 1;
    }
    if (value instanceof io.vertx.core.json.JsonArray a) {
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
