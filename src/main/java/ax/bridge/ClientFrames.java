package ax.bridge;

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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a frame's bytes into a {@link ClientFrame}, once: the body handed to the event bus is the very
 * object checked here, so no second parser can read the bytes differently. Strict where a lenient reader
 * would leave two meanings: UTF-8 must be valid, a key may appear only once (at any depth), nothing may
 * follow the object, and nesting is bounded. Each refusal is the {@code message} of the {@code err}
 * frame the client gets (docs/executor-protocol.md "Connection and frames").
 */
public final class ClientFrames {
  /** Deeper JSON is refused: no protocol message nests beyond a few levels, and every reader recurses. */
  public static final int MAX_NESTING = 128;

  public static final String INVALID_JSON = "invalid_json";
  public static final String UNKNOWN_TYPE = "unknown_type";
  public static final String INVALID_HEADERS = "invalid_headers";
  public static final String MISSING_ADDRESS = "missing_address";
  public static final String INVALID_REPLY_ADDRESS = "invalid_reply_address";
  public static final String INVALID_BODY = "invalid_body";
  public static final String INVALID_FAILURE = "invalid_failure";

  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
      .build();

  private ClientFrames() {
  }

  /** Either a frame or the reason it was refused. */
  public record Parsed(ClientFrame frame, String refusal) {
    static Parsed refused(String why) {
      return new Parsed(null, why);
    }
  }

  public static Parsed parse(byte[] bytes) {
    if (bytes.length == 0 || !Utf8.isValid(bytes)) {
      return Parsed.refused(INVALID_JSON);
    }
    JsonObject o;
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return Parsed.refused(INVALID_JSON);
      }
      o = readObject(p);
      if (p.nextToken() != null) {
        return Parsed.refused(INVALID_JSON); // a second value after the object
      }
    } catch (IOException e) { // includes duplicate keys and the nesting bound
      return Parsed.refused(INVALID_JSON);
    }
    return frame(o);
  }

  private static Parsed frame(JsonObject o) {
    ClientFrame.Type type = o.getValue("type") instanceof String s ? ClientFrame.Type.of(s) : null;
    if (type == null) {
      return Parsed.refused(UNKNOWN_TYPE);
    }
    Map<String, String> headers = headers(o.getValue("headers"));
    if (headers == null) {
      return Parsed.refused(INVALID_HEADERS);
    }
    if (type == ClientFrame.Type.PING) {
      return new Parsed(ClientFrame.ping(), null);
    }
    if (!(o.getValue("address") instanceof String address) || address.isEmpty()) {
      return Parsed.refused(MISSING_ADDRESS);
    }
    Object reply = o.getValue("replyAddress");
    if (reply != null && !(reply instanceof String s && !s.isEmpty())) {
      return Parsed.refused(INVALID_REPLY_ADDRESS);
    }
    Object body = o.getValue("body");
    if (body instanceof BigInteger || body instanceof BigDecimal) {
      return Parsed.refused(INVALID_BODY); // the event bus has no codec for these at the top level
    }
    Object code = o.getValue("failureCode");
    Object message = o.getValue("message");
    if ((code != null && !(code instanceof Integer)) || (message != null && !(message instanceof String))) {
      return Parsed.refused(INVALID_FAILURE);
    }
    return new Parsed(new ClientFrame(type, address, (String) reply, headers, body, (Integer) code,
        (String) message), null);
  }

  /** Header values are strings (they become event-bus headers); absent or null means none. */
  private static Map<String, String> headers(Object raw) {
    if (raw == null) {
      return Map.of();
    }
    if (!(raw instanceof JsonObject h)) {
      return null;
    }
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, Object> e : h) {
      if (!(e.getValue() instanceof String v)) {
        return null;
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  private static JsonObject readObject(JsonParser p) throws IOException {
    Map<String, Object> map = new LinkedHashMap<>();
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      map.put(name, readValue(p, p.nextToken()));
    }
    if (t != JsonToken.END_OBJECT) {
      throw new IOException("unterminated object");
    }
    return new JsonObject(map);
  }

  private static Object readValue(JsonParser p, JsonToken t) throws IOException {
    if (t == null) {
      throw new IOException("unexpected end of input");
    }
    return switch (t) {
      case START_OBJECT -> readObject(p);
      case START_ARRAY -> readArray(p);
      case VALUE_STRING -> p.getText();
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getNumberValue(); // as Vert.x's own decoder does
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> throw new IOException("unexpected " + t);
    };
  }

  private static JsonArray readArray(JsonParser p) throws IOException {
    JsonArray a = new JsonArray();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      a.add(readValue(p, t));
    }
    return a;
  }
}
