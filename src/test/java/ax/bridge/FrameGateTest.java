package ax.bridge;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class FrameGateTest {
  @Test
  void passesTheFrameTypesOfTheBridge() {
    for (String type : new String[] {"ping", "register", "unregister", "send", "publish"}) {
      assertNull(FrameGate.check(new JsonObject().put("type", type).toBuffer()), type);
    }
  }

  @Test
  void refusesWhatWouldWedgeOrConfuseTheBridge() {
    assertEquals("unknown_type", FrameGate.check(new JsonObject().put("type", "bogus").toBuffer()));
    assertEquals("unknown_type", FrameGate.check(new JsonObject().put("type", 7).toBuffer()));
    assertEquals("unknown_type", FrameGate.check(new JsonObject().toBuffer()));
    assertEquals("invalid_json", FrameGate.check(Buffer.buffer("[1,2]")));
    assertEquals("invalid_json", FrameGate.check(Buffer.buffer("{\"type\":")));
    assertEquals("invalid_headers", FrameGate.check(Buffer.buffer("{\"type\":\"send\",\"headers\":[1]}")));
    assertEquals("invalid_json", FrameGate.check(Buffer.buffer("{\"type\":\"ping\"} trailing")));
    assertEquals("invalid_json", FrameGate.check(Buffer.buffer("{\"type\":\"send\",\"body\":{\"a\":[1,}}")),
        "malformed deep inside the body is still caught");
    assertEquals("unknown_type", FrameGate.check(Buffer.buffer("{\"type\":{\"nested\":\"send\"}}")));
  }

  @Test
  void looksOnlyAtTheTopLevelFields() {
    assertNull(FrameGate.check(Buffer.buffer(
        "{\"body\":{\"type\":\"bogus\",\"deep\":[1,2,{\"a\":\"b\"}]},\"type\":\"send\",\"headers\":{}}")));
  }

  @Test
  void framesAreLengthPrefixed() {
    Buffer f = FrameGate.frame(new JsonObject().put("type", "pong"));
    assertEquals(f.length() - 4, f.getInt(0));
    assertEquals("{\"type\":\"pong\"}", f.getString(4, f.length()));
  }
}
