package ax.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;

/**
 * What a request body may contain before it is decoded, checked in one streaming pass: well-formed
 * UTF-8 JSON, no key twice in one object (two parsers could otherwise read two different requests from
 * the same signed bytes), at most {@link #MAX_DEPTH} levels of nesting, and no NUL character or lone
 * surrogate in a key or a string (PostgreSQL cannot store them: the request would fail late, as a 500).
 * A refusal names where in the body it happened, as a JSON pointer.
 */
final class JsonLimits {
  /** Nesting of the whole body: a batch's wrapper and a task's fields around a payload of {@link #MAX_PAYLOAD_DEPTH}. */
  static final int MAX_DEPTH = 72;
  /** Nesting of a task's payload (openapi.yaml, {@code payload}). */
  static final int MAX_PAYLOAD_DEPTH = 64;

  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH + 1).build())
      .build();

  private JsonLimits() {
  }

  /** @throws InvalidRequest {@code validation_failed} naming the first thing wrong with the body */
  static void check(byte[] body) throws InvalidRequest {
    try (JsonParser p = JSON.createParser(body)) {
      int depth = 0;
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        switch (t) {
          case START_OBJECT, START_ARRAY -> {
            if (++depth > MAX_DEPTH) {
              throw InvalidRequest.field(pointer(p), "nested more than " + MAX_DEPTH + " levels deep");
            }
          }
          case END_OBJECT, END_ARRAY -> depth--;
          case FIELD_NAME -> requireStorable(p.currentName(), p, "a key");
          case VALUE_STRING -> requireStorable(p.getText(), p, "a string");
          default -> {
          }
        }
      }
    } catch (InvalidRequest e) {
      throw e;
    } catch (JsonParseException e) {
      String why = e.getOriginalMessage();
      if (why != null && why.startsWith("Duplicate field")) {
        throw InvalidRequest.field("body", "a key appears twice in one object (" + why + ")");
      }
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

  private static void requireStorable(String text, JsonParser p, String what) throws InvalidRequest {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        throw InvalidRequest.field(pointer(p), what + " contains a NUL character (\\u0000)");
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
          continue;
        }
        throw InvalidRequest.field(pointer(p), what + " contains a lone surrogate (not Unicode text)");
      }
      if (Character.isLowSurrogate(c)) {
        throw InvalidRequest.field(pointer(p), what + " contains a lone surrogate (not Unicode text)");
      }
    }
  }

  private static String pointer(JsonParser p) {
    String path = p.getParsingContext().pathAsPointer().toString();
    return path.isEmpty() ? "body" : path.substring(1).replace('/', '.');
  }
}
