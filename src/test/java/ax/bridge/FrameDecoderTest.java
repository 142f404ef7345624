package ax.bridge;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameDecoderTest {
  private static byte[] frame(String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
  }

  private static byte[] header(long length) {
    return ByteBuffer.allocate(4).putInt((int) length).array();
  }

  private static List<String> drain(FrameDecoder d) {
    List<String> out = new ArrayList<>();
    for (FrameDecoder.Result r = d.next(); r instanceof FrameDecoder.Frame f; r = d.next()) {
      out.add(new String(f.body(), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void framesSplitAndCoalescedAnyWayComeOutWholeAndInOrder() {
    byte[] stream = concat(frame("{\"type\":\"ping\"}"), frame("{\"a\":1}"), frame("{}"));
    for (int cut = 1; cut < stream.length; cut++) {
      FrameDecoder d = new FrameDecoder(1_024);
      d.feed(Arrays.copyOfRange(stream, 0, cut));
      List<String> got = new ArrayList<>(drain(d));
      d.feed(Arrays.copyOfRange(stream, cut, stream.length));
      got.addAll(drain(d));
      assertEquals(List.of("{\"type\":\"ping\"}", "{\"a\":1}", "{}"), got, "cut at " + cut);
      assertEquals(0, d.heldBytes());
    }
  }

  @Test
  void oneByteAtATimeStillWorks() {
    byte[] stream = frame("{\"type\":\"send\",\"body\":\"" + "x".repeat(10_000) + "\"}");
    FrameDecoder d = new FrameDecoder(1 << 20);
    List<String> got = new ArrayList<>();
    for (byte b : stream) {
      d.feed(new byte[] {b});
      got.addAll(drain(d));
    }
    assertEquals(1, got.size());
    assertEquals(stream.length - 4, got.get(0).length());
  }

  @Test
  void aZeroLengthFrameIsAnEmptyFrameForTheParserToRefuse() {
    FrameDecoder d = new FrameDecoder(1_024);
    d.feed(concat(header(0), frame("{}")));

    assertArrayEquals(new byte[0], ((FrameDecoder.Frame) d.next()).body());
    assertEquals("{}", new String(((FrameDecoder.Frame) d.next()).body(), StandardCharsets.UTF_8));
  }

  @Test
  void aDeclaredLengthOverTheLimitIsRefusedBeforeAnyBodyIsStored() {
    FrameDecoder d = new FrameDecoder(1_024);
    d.feed(concat(header(4_294_967_295L), new byte[100]));

    FrameDecoder.TooLarge r = assertInstanceOf(FrameDecoder.TooLarge.class, d.next());
    assertEquals(4_294_967_295L, r.declared());
    assertEquals(0, d.heldBytes(), "nothing kept once the stream is refused");
    d.feed(frame("{}"));
    assertInstanceOf(FrameDecoder.TooLarge.class, d.next(), "the stream cannot be framed any more");
  }

  @Test
  void exactlyTheLimitPasses() {
    FrameDecoder d = new FrameDecoder(1_024);
    d.feed(concat(header(1_024), new byte[1_024]));

    assertEquals(1_024, ((FrameDecoder.Frame) d.next()).body().length);
  }

  @Test
  void aPartialFrameHoldsAboutWhatArrivedAndNeverMoreThanItsDeclaredLength() {
    int declared = 1_000_000;
    FrameDecoder d = new FrameDecoder(1 << 20);
    d.feed(header(declared));
    d.feed(new byte[10]);
    assertSame(FrameDecoder.NeedMore.INSTANCE, d.next());
    assertEquals(FrameDecoder.INITIAL_BODY_BYTES, d.heldBytes(), "a declaration alone costs one small array");

    for (int sent = 10; sent < declared - 1; sent += 64 * 1024) {
      int n = Math.min(64 * 1024, declared - 1 - sent);
      d.feed(new byte[n]);
      assertSame(FrameDecoder.NeedMore.INSTANCE, d.next());
      long received = sent + n;
      assertTrue(d.heldBytes() <= Math.max(FrameDecoder.INITIAL_BODY_BYTES, 2 * received), "held " + d.heldBytes());
      assertTrue(d.heldBytes() <= declared, "never beyond the frame itself: " + d.heldBytes());
    }
  }

  @Test
  void aLimitRaisedAfterAuthenticationAppliesFromTheNextHeader() {
    FrameDecoder d = new FrameDecoder(16);
    d.feed(frame("{\"type\":\"ping\"}"));
    assertInstanceOf(FrameDecoder.Frame.class, d.next());
    d.limit(1_024);
    d.feed(frame("{\"type\":\"send\",\"address\":\"x\"}"));
    assertInstanceOf(FrameDecoder.Frame.class, d.next());
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(n);
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.array();
  }
}
