package ax.bridge;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClientFramesTest {
  private static String refusal(String json) {
    return refusal(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String refusal(byte[] bytes) {
    ClientFrames.Parsed p = ClientFrames.parse(bytes);
    assertTrue(p.frame() == null ^ p.refusal() == null);
    return p.refusal();
  }

  private static ClientFrame frame(String json) {
    ClientFrames.Parsed p = ClientFrames.parse(json.getBytes(StandardCharsets.UTF_8));
    assertNull(p.refusal(), json);
    return p.frame();
  }

  @Test
  void readsTheFiveFrameTypesOfTheBridge() {
    assertEquals(ClientFrame.Type.PING, frame("{\"type\":\"ping\"}").type());
    for (String type : new String[] {"register", "unregister", "send", "publish"}) {
      assertEquals(type, frame("{\"type\":\"" + type + "\",\"address\":\"a\"}").type().wire);
    }
  }

  @Test
  void aRequestCarriesItsAddressReplyAddressHeadersAndBodyAsJson() {
    ClientFrame f = frame("{\"type\":\"send\",\"address\":\"ax.exec.result\",\"replyAddress\":\"r-1\","
        + "\"headers\":{\"token\":\"t\"},\"body\":{\"results\":[{\"task_id\":\"7421394872192303104\"}],\"n\":1.5}}");

    assertEquals("ax.exec.result", f.address());
    assertEquals("r-1", f.replyAddress());
    assertEquals(Map.of("token", "t"), f.headers());
    JsonObject body = (JsonObject) f.body();
    assertEquals("7421394872192303104", body.getJsonArray("results").getJsonObject(0).getString("task_id"));
    assertEquals(1.5, body.getDouble("n"));
  }

  @Test
  void aReplyToTheServerMayCarryAFailure() {
    ClientFrame f = frame("{\"type\":\"send\",\"address\":\"__vertx.reply.4\",\"failureCode\":418,\"message\":\"no\"}");

    assertEquals(418, f.failureCode());
    assertEquals("no", f.failureMessage());
    assertNull(f.body());
  }

  @Test
  void anythingButAJsonObjectIsInvalidJson() {
    assertEquals("invalid_json", refusal(""));
    assertEquals("invalid_json", refusal("[1,2]"));
    assertEquals("invalid_json", refusal("\"send\""));
    assertEquals("invalid_json", refusal("{\"type\":"));
    assertEquals("invalid_json", refusal("{\"type\":\"ping\"} trailing"));
    assertEquals("invalid_json", refusal("{\"type\":\"ping\"}{\"type\":\"ping\"}"));
    assertEquals("invalid_json", refusal("{\"type\":\"send\",\"body\":{\"a\":[1,}}"), "broken deep inside the body");
  }

  @Test
  void aKeyTwiceAtAnyDepthIsInvalidJson() {
    assertEquals("invalid_json", refusal("{\"type\":\"ping\",\"type\":\"bogus\"}"));
    assertEquals("invalid_json",
        refusal("{\"type\":\"send\",\"address\":\"a\",\"headers\":{\"executor_id\":\"a\",\"executor_id\":\"b\"}}"));
    assertEquals("invalid_json", refusal("{\"type\":\"send\",\"address\":\"a\",\"body\":{\"x\":{\"k\":1,\"k\":2}}}"));
  }

  @Test
  void nestingBeyondTheBoundIsInvalidJson() {
    int deep = ClientFrames.MAX_NESTING + 10;
    String body = "[".repeat(deep) + "]".repeat(deep);
    assertEquals("invalid_json", refusal("{\"type\":\"send\",\"address\":\"a\",\"body\":" + body + "}"));
    String fine = "[".repeat(50) + "]".repeat(50);
    assertTrue(frame("{\"type\":\"send\",\"address\":\"a\",\"body\":" + fine + "}").body() instanceof JsonArray);
  }

  @Test
  void brokenUtf8IsInvalidJsonWhereverItIs() {
    byte[] ok = "{\"type\":\"send\",\"address\":\"a\",\"body\":\"XY\"}".getBytes(StandardCharsets.UTF_8);
    int at = new String(ok, StandardCharsets.UTF_8).indexOf("XY");
    byte[][] broken = {
        {(byte) 0xC0, (byte) 0xA2},             // overlong '"'
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
        {(byte) 0xF5, (byte) 0x80},             // beyond U+10FFFF
        {(byte) 0x80, 'Y'},                     // a stray continuation byte
        {(byte) 0xE2, (byte) 0x82},             // truncated
    };
    for (byte[] b : broken) {
      byte[] bytes = ok.clone();
      byte[] patched = new byte[bytes.length - 2 + b.length];
      System.arraycopy(bytes, 0, patched, 0, at);
      System.arraycopy(b, 0, patched, at, b.length);
      System.arraycopy(bytes, at + 2, patched, at + b.length, bytes.length - at - 2);
      assertEquals("invalid_json", refusal(patched));
    }
    assertEquals("é€😀", frame("{\"type\":\"send\",\"address\":\"a\",\"body\":\"é€😀\"}").body());
  }

  @Test
  void utf8ValidationFollowsRfc3629() {
    assertTrue(Utf8.isValid("plain ascii, é, €, 😀".getBytes(StandardCharsets.UTF_8)));
    assertFalse(Utf8.isValid(new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80}), "overlong NUL");
    assertFalse(Utf8.isValid(new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}), "U+110000");
    assertTrue(Utf8.isValid(new byte[] {(byte) 0xF4, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF}), "U+10FFFF");
  }

  @Test
  void anUnknownOrMissingTypeIsUnknownType() {
    assertEquals("unknown_type", refusal("{\"type\":\"bogus\"}"));
    assertEquals("unknown_type", refusal("{\"type\":\"PING\"}"));
    assertEquals("unknown_type", refusal("{\"type\":7}"));
    assertEquals("unknown_type", refusal("{\"type\":{\"nested\":\"send\"}}"));
    assertEquals("unknown_type", refusal("{}"));
  }

  @Test
  void headersMustBeAnObjectOfStrings() {
    assertEquals("invalid_headers", refusal("{\"type\":\"send\",\"address\":\"a\",\"headers\":[1]}"));
    assertEquals("invalid_headers", refusal("{\"type\":\"send\",\"address\":\"a\",\"headers\":{\"timeout\":5}}"));
    assertEquals(Map.of(), frame("{\"type\":\"send\",\"address\":\"a\",\"headers\":null}").headers());
  }

  @Test
  void everyFrameButPingNeedsAStringAddress() {
    assertEquals("missing_address", refusal("{\"type\":\"send\"}"));
    assertEquals("missing_address", refusal("{\"type\":\"register\",\"address\":\"\"}"));
    assertEquals("missing_address", refusal("{\"type\":\"send\",\"address\":7}"));
    assertEquals("invalid_reply_address", refusal("{\"type\":\"send\",\"address\":\"a\",\"replyAddress\":[]}"));
  }

  @Test
  void aTopLevelNumberBeyond64BitsIsAnInvalidBody() {
    assertEquals("invalid_body", refusal("{\"type\":\"send\",\"address\":\"a\",\"body\":123456789012345678901234567890}"));
    assertEquals("invalid_failure", refusal("{\"type\":\"send\",\"address\":\"a\",\"failureCode\":\"418\"}"));
    assertEquals(7L, ((Number) frame("{\"type\":\"send\",\"address\":\"a\",\"body\":7}").body()).longValue());
  }
}
