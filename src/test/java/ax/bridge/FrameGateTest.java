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
  }

  @Test
  void framesAreLengthPrefixed() {
    Buffer f = FrameGate.frame(new JsonObject().put("type", "pong"));
    assertEquals(f.length() - 4, f.getInt(0));
    assertEquals("{\"type\":\"pong\"}", f.getString(4, f.length()));
  }
}
