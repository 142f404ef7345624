package ax.json;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Stored JSON to values and back without losing a digit (Vert.x's own decoding goes through doubles). */
class JsonTextTest {

  @Test
  void numbersSurviveExactly() {
    Object v = JsonText.parse("[0.1000000000000000000001,1e400,123456789012345678901234567890,7,-0.5]");
    JsonArray a = (JsonArray) v;
    assertEquals(new BigDecimal("0.1000000000000000000001"), a.getValue(0));
    assertEquals(new BigDecimal("1e400"), a.getValue(1));
    assertEquals(new BigInteger("123456789012345678901234567890"), a.getValue(2));
    assertEquals(7, a.getValue(3));
    assertEquals("[0.1000000000000000000001,1" + "0".repeat(400) + ",123456789012345678901234567890,7,-0.5]",
        JsonText.encode(v), "written out in full, as jsonb writes it");
  }

  @Test
  void objectsArraysAndScalarsRoundTrip() {
    String json = "{\"a\":{\"b\":[true,false,null,\"s\"]},\"c\":\"😀\"}";
    assertEquals(new JsonObject(json), JsonText.parse(json));
    assertEquals(json, JsonText.encode(JsonText.parse(json)));
    assertEquals("x", JsonText.parse("\"x\""));
    assertNull(JsonText.parse("null"));
    assertNull(JsonText.parse(null));
  }

  /** Finding 2: a payload nested ~1 000 deep, stored by an older version, hung every read of it. */
  @Test
  void storedJsonTooDeepToServeIsServedAsItsText() {
    String deep = "[".repeat(999) + "]".repeat(999);
    assertEquals(deep, JsonText.parseOrText(deep));
    String fine = "[".repeat(JsonText.MAX_DEPTH) + "]".repeat(JsonText.MAX_DEPTH);
    assertEquals(JsonArray.class, JsonText.parseOrText(fine).getClass());
  }
}
