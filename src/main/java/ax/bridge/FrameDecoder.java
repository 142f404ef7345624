package ax.bridge;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Cuts a TCP byte stream into bridge frames: a 4-byte big-endian unsigned length, then that many bytes
 * (docs/executor-protocol.md). Pure: it is fed bytes and asked for the next frame, so the connection can
 * stop asking (while a token is checked, or while the client does not read its answers) without the
 * decoder buffering anything but what already arrived.
 *
 * <p>Memory is the point of this class. A declared length over the current limit is refused before a
 * byte of the body is stored. The body array grows with what actually arrived (doubling, never past the
 * declared length), so a client that declares a large frame and sends little holds little, and a frame
 * never costs more than its own length — unlike a growing {@code Buffer}, whose capacity overshoots the
 * cap. {@link #heldBytes()} is the exact count of heap bytes this decoder keeps, for the node-wide budget
 * of unauthenticated connections.
 */
public final class FrameDecoder {
  /** The first allocation for a body; most frames (heartbeats, acks, registers) fit in it. */
  static final int INITIAL_BODY_BYTES = 4 * 1024;

  /** One result of {@link #next()}. */
  public sealed interface Result permits Frame, TooLarge, NeedMore {
  }

  /** A whole frame's body, exactly its declared length. */
  public record Frame(byte[] body) implements Result {
  }

  /** The header declared more than the limit; the stream cannot be trusted after this. */
  public record TooLarge(long declared, int limit) implements Result {
  }

  /** Nothing complete yet: feed more bytes. */
  public enum NeedMore implements Result { INSTANCE }

  private final ArrayDeque<byte[]> input = new ArrayDeque<>();
  private int inputOffset;
  private long inputBytes;
  private final byte[] header = new byte[4];
  private int headerFilled;
  private byte[] body;
  private int bodyLength = -1;
  private int bodyFilled;
  private int limit;
  private boolean failed;

  public FrameDecoder(int limit) {
    limit(limit);
  }

  /** Changes the largest frame accepted from the next header on (raised once a connection authenticates). */
  public void limit(int maxFrameBytes) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("frame limit must be positive: " + maxFrameBytes);
    }
    this.limit = maxFrameBytes;
  }

  /** Queues bytes as they came off the socket; nothing is decoded until {@link #next()}. */
  public void feed(byte[] chunk) {
    if (failed || chunk.length == 0) {
      return;
    }
    input.add(chunk);
    inputBytes += chunk.length;
  }

  /** The next complete frame, a refusal, or {@link NeedMore}. After {@link TooLarge} it keeps answering that. */
  public Result next() {
    if (failed) {
      return new TooLarge(declaredLength(), limit);
    }
    while (true) {
      if (bodyLength < 0) {
        if (!fillHeader()) {
          return NeedMore.INSTANCE;
        }
        long declared = declaredLength();
        if (declared > limit) {
          failed = true;
          input.clear();
          inputBytes = 0;
          return new TooLarge(declared, limit);
        }
        bodyLength = (int) declared;
        bodyFilled = 0;
        body = new byte[Math.min(bodyLength, INITIAL_BODY_BYTES)];
      }
      if (bodyFilled == bodyLength) {
        byte[] whole = body.length == bodyLength ? body : Arrays.copyOf(body, bodyLength);
        body = null;
        bodyLength = -1;
        headerFilled = 0;
        return new Frame(whole);
      }
      if (input.isEmpty()) {
        return NeedMore.INSTANCE;
      }
      fillBody();
    }
  }

  /** Heap bytes held: the queued chunks not yet wholly decoded plus the partial body's array. */
  public long heldBytes() {
    return inputBytes + (body == null ? 0 : body.length);
  }

  private long declaredLength() {
    return ((header[0] & 0xFFL) << 24) | ((header[1] & 0xFFL) << 16) | ((header[2] & 0xFFL) << 8) | (header[3] & 0xFFL);
  }

  private boolean fillHeader() {
    while (headerFilled < 4 && !input.isEmpty()) {
      byte[] chunk = input.peek();
      header[headerFilled++] = chunk[inputOffset++];
      consumed(chunk);
    }
    return headerFilled == 4;
  }

  private void fillBody() {
    byte[] chunk = input.peek();
    int n = Math.min(chunk.length - inputOffset, bodyLength - bodyFilled);
    if (bodyFilled + n > body.length) {
      // Double, but never beyond the declared length: the array is at most the frame itself.
      int capacity = (int) Math.min(bodyLength, Math.max((long) bodyFilled + n, 2L * body.length));
      body = Arrays.copyOf(body, capacity);
    }
    System.arraycopy(chunk, inputOffset, body, bodyFilled, n);
    bodyFilled += n;
    inputOffset += n;
    consumed(chunk);
  }

  private void consumed(byte[] chunk) {
    if (inputOffset == chunk.length) {
      input.poll();
      inputBytes -= chunk.length;
      inputOffset = 0;
    }
  }
}
