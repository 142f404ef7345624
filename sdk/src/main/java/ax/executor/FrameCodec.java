package ax.executor;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.parsetools.RecordParser;

/**
 * The TCP event-bus bridge framing: a 4-byte big-endian unsigned length, then that many bytes of UTF-8
 * JSON. {@link #encode} builds a frame; {@link Decoder} turns a byte stream (TCP splits and coalesces
 * frames at will) back into JSON objects.
 */
final class FrameCodec {
  /** The server refuses bigger frames and closes the connection; we refuse them before sending. */
  public static final int MAX_OUTBOUND_BYTES = 1 << 20;
  /** A sanity bound for frames from the server (dispatch batches); a larger length means a broken stream. */
  public static final int MAX_INBOUND_BYTES = 64 << 20;

  private FrameCodec() {
  }

  /** @throws FrameTooLargeException if the JSON is over {@link #MAX_OUTBOUND_BYTES} */
  public static Buffer encode(JsonObject frame) {
    Buffer json = frame.toBuffer();
    if (json.length() > MAX_OUTBOUND_BYTES) {
      throw new FrameTooLargeException(json.length(), MAX_OUTBOUND_BYTES);
    }
    return Buffer.buffer(4 + json.length()).appendInt(json.length()).appendBuffer(json);
  }

  /** Thrown for a frame over the size limit. */
  public static final class FrameTooLargeException extends RuntimeException {
    FrameTooLargeException(long length, int max) {
      super("frame of " + length + " bytes exceeds the limit of " + max);
    }
  }

  /**
   * Reassembles frames with a {@link RecordParser} in fixed-size mode, alternating between the 4-byte
   * header and the body it announces. After an error (bad length, not a JSON object) the stream cannot
   * be trusted any more: the decoder reports it once and ignores the rest; the caller closes the socket.
   */
  public static final class Decoder implements Handler<Buffer> {
    private final RecordParser parser = RecordParser.newFixed(4);
    private final Handler<JsonObject> onFrame;
    private final Handler<Throwable> onError;
    private final int maxFrameBytes;
    private boolean expectHeader = true;
    private boolean failed;

    public Decoder(Handler<JsonObject> onFrame, Handler<Throwable> onError) {
      this(onFrame, onError, MAX_INBOUND_BYTES);
    }

    public Decoder(Handler<JsonObject> onFrame, Handler<Throwable> onError, int maxFrameBytes) {
      this.onFrame = onFrame;
      this.onError = onError;
      this.maxFrameBytes = maxFrameBytes;
      parser.handler(this::onRecord);
    }

    @Override
    public void handle(Buffer chunk) {
      if (!failed) {
        parser.handle(chunk);
      }
    }

    private void onRecord(Buffer record) {
      if (failed) {
        return;
      }
      if (expectHeader) {
        long length = record.getUnsignedInt(0);
        if (length > maxFrameBytes) {
          fail(new FrameTooLargeException(length, maxFrameBytes));
          return;
        }
        if (length < 2) { // "{}" is the shortest JSON object
          fail(new IllegalStateException("bad frame length " + length));
          return;
        }
        expectHeader = false;
        parser.fixedSizeMode((int) length);
        return;
      }
      expectHeader = true;
      parser.fixedSizeMode(4);
      JsonObject frame;
      try {
        frame = new JsonObject(record);
      } catch (DecodeException | ClassCastException e) {
        fail(new IllegalStateException("frame is not a JSON object: " + e.getMessage(), e));
        return;
      }
      onFrame.handle(frame);
    }

    private void fail(Throwable error) {
      failed = true;
      onError.handle(error);
    }
  }
}
