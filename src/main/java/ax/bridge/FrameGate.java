package ax.bridge;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Stands in front of the Vert.x TCP event-bus bridge, one upstream connection per executor connection.
 * The bridge itself buffers any declared frame length, and a frame with an unknown {@code type} wedges
 * its parser for good (VERTX5-NOTES §2). The gate reads each frame first: too large → an error frame and
 * the connection is closed; not a JSON object, or an unknown type → an error frame, the frame is dropped
 * and the connection stays usable; anything else is passed on byte for byte. Replies flow back untouched.
 */
public final class FrameGate {
  private static final Logger LOG = Logger.getLogger(FrameGate.class.getName());
  private static final Set<String> FRAME_TYPES = Set.of("ping", "register", "unregister", "send", "publish");
  /** Frames held while the upstream connection is being opened; a client that floods before that is cut. */
  private static final int MAX_EARLY_FRAMES = 64;
  private static final JsonFactory JSON = new JsonFactory();

  private final NetClient upstreamClient;
  private final String upstreamHost;
  private final int upstreamPort;
  private final int maxFrameBytes;
  private final GateCounters counters;

  public FrameGate(NetClient upstreamClient, String upstreamHost, int upstreamPort, int maxFrameBytes,
                   GateCounters counters) {
    this.upstreamClient = upstreamClient;
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
    this.maxFrameBytes = maxFrameBytes;
    this.counters = counters;
  }

  /** What the gate refused, for metrics. */
  public interface GateCounters {
    void refused(String reason);
  }

  public void accept(NetSocket client) {
    Connection c = new Connection(client);
    client.pause();
    upstreamClient.connect(upstreamPort, upstreamHost).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warning("bridge upstream unavailable: " + ar.cause());
        client.close();
        return;
      }
      c.attach(ar.result());
      client.resume();
    });
  }

  private final class Connection {
    private final NetSocket client;
    private final RecordParser parser;
    private final ArrayDeque<Buffer> early = new ArrayDeque<>();
    private NetSocket upstream;
    private boolean readingHeader = true;
    private boolean closed;

    Connection(NetSocket client) {
      this.client = client;
      this.parser = RecordParser.newFixed(4, this::onRecord);
      client.handler(parser);
      client.closeHandler(v -> {
        closed = true;
        if (upstream != null) {
          upstream.close();
        }
      });
      client.exceptionHandler(e -> client.close());
    }

    void attach(NetSocket up) {
      if (closed) {
        up.close();
        return;
      }
      upstream = up;
      up.handler(data -> {
        client.write(data);
        if (client.writeQueueFull()) {
          up.pause();
        }
      });
      up.closeHandler(v -> client.close());
      up.exceptionHandler(e -> client.close());
      // Backpressure both ways: neither side can make the gate buffer without bound.
      up.drainHandler(v -> client.resume());
      client.drainHandler(v -> up.resume());
      while (!early.isEmpty()) {
        forward(early.poll());
      }
    }

    private void onRecord(Buffer record) {
      if (closed) {
        return;
      }
      if (readingHeader) {
        long length = record.getUnsignedInt(0);
        if (length > maxFrameBytes) {
          counters.refused("frame_too_large");
          refuseAndClose("frame_too_large");
          return;
        }
        if (length == 0) {
          counters.refused("invalid_json");
          error("invalid_json");
          return;
        }
        readingHeader = false;
        parser.fixedSizeMode((int) length);
        return;
      }
      readingHeader = true;
      parser.fixedSizeMode(4);
      String problem = check(record);
      if (problem != null) {
        counters.refused(problem);
        error(problem);
        return;
      }
      Buffer frame = Buffer.buffer(record.length() + 4).appendUnsignedInt(record.length()).appendBuffer(record);
      if (upstream == null) {
        if (early.size() >= MAX_EARLY_FRAMES) {
          refuseAndClose("too_many_frames");
          return;
        }
        early.add(frame);
      } else {
        forward(frame);
      }
    }

    private void forward(Buffer frame) {
      upstream.write(frame);
      if (upstream.writeQueueFull()) {
        client.pause();
      }
    }

    private void error(String message) {
      client.write(FrameGate.frame(new JsonObject().put("type", "err").put("message", message)));
      if (client.writeQueueFull() && upstream != null) {
        upstream.pause();
      }
    }

    private void refuseAndClose(String message) {
      closed = true;
      client.pause();
      client.end(FrameGate.frame(new JsonObject().put("type", "err").put("message", message)));
      if (upstream != null) {
        upstream.close();
      }
    }
  }

  /**
   * Null when the frame may pass, else the error message for the client. Streams over the tokens
   * instead of building the object: result frames are large and the bridge parses them again anyway,
   * so only the top-level {@code type} and {@code headers} are looked at (the tokenizer still rejects
   * malformed JSON anywhere in the frame).
   */
  static String check(Buffer body) {
    String type = null;
    boolean headersOk = true;
    try (JsonParser p = JSON.createParser(body.getBytes())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "invalid_json";
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if ("type".equals(field)) {
          type = value == JsonToken.VALUE_STRING ? p.getText() : "";
        } else if ("headers".equals(field)) {
          headersOk = value == JsonToken.START_OBJECT || value == JsonToken.VALUE_NULL;
        }
        p.skipChildren();
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return "invalid_json";
      }
    } catch (IOException e) {
      return "invalid_json";
    }
    if (type == null || !FRAME_TYPES.contains(type)) {
      return "unknown_type";
    }
    return headersOk ? null : "invalid_headers";
  }

  /** Encodes one frame: 4-byte big-endian length, then UTF-8 JSON. */
  public static Buffer frame(JsonObject message) {
    Buffer json = message.toBuffer();
    return Buffer.buffer(json.length() + 4).appendUnsignedInt(json.length()).appendBuffer(json);
  }
}
