package ax.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
  private final List<JsonObject> frames = new ArrayList<>();
  private final List<Throwable> errors = new ArrayList<>();
  private final FrameCodec.Decoder decoder = new FrameCodec.Decoder(frames::add, errors::add, 1_000);

  private final JsonObject ping = new JsonObject().put("type", "ping");
  private final JsonObject send = new JsonObject().put("type", "send").put("address", "ax.exec.result")
      .put("body", new JsonObject().put("task_id", "7421394872192303104").put("text", "héllo"));

  @Test
  void aFrameIsABigEndianLengthThenUtf8Json() {
    Buffer frame = FrameCodec.encode(send);

    byte[] json = send.encode().getBytes(StandardCharsets.UTF_8);
    assertEquals(json.length, frame.getInt(0));
    assertEquals(4 + json.length, frame.length());
    assertEquals(send, new JsonObject(frame.getBuffer(4, frame.length())));
  }

  @Test
  void aFrameSplitIntoSingleBytesIsReassembled() {
    Buffer frame = FrameCodec.encode(send);
    for (int i = 0; i < frame.length(); i++) {
      decoder.handle(frame.getBuffer(i, i + 1));
    }

    assertEquals(List.of(send), frames);
  }

  @Test
  void framesCoalescedIntoOneReadAreAllDelivered() {
    decoder.handle(Buffer.buffer().appendBuffer(FrameCodec.encode(ping)).appendBuffer(FrameCodec.encode(send))
        .appendBuffer(FrameCodec.encode(ping)));

    assertEquals(List.of(ping, send, ping), frames);
  }

  @Test
  void aReadEndingInTheMiddleOfTheNextHeaderKeepsTheRest() {
    Buffer both = Buffer.buffer().appendBuffer(FrameCodec.encode(send)).appendBuffer(FrameCodec.encode(ping));
    int cut = FrameCodec.encode(send).length() + 2;

    decoder.handle(both.getBuffer(0, cut));
    assertEquals(List.of(send), frames);
    decoder.handle(both.getBuffer(cut, both.length()));

    assertEquals(List.of(send, ping), frames);
    assertTrue(errors.isEmpty());
  }

  @Test
  void anOversizedLengthIsReportedOnceAndTheRestIgnored() {
    decoder.handle(Buffer.buffer().appendInt(1_001).appendString("{}"));
    decoder.handle(FrameCodec.encode(ping));

    assertEquals(1, errors.size());
    assertTrue(frames.isEmpty());
  }

  @Test
  void aFrameThatIsNotAJsonObjectIsReported() {
    decoder.handle(Buffer.buffer().appendInt(2).appendString("[]"));

    assertEquals(1, errors.size());
  }

  @Test
  void framesOverTheServerLimitAreNotEncoded() {
    JsonObject huge = new JsonObject().put("body", "x".repeat(FrameCodec.MAX_OUTBOUND_BYTES));

    assertThrows(FrameCodec.FrameTooLargeException.class, () -> FrameCodec.encode(huge));
  }
}
