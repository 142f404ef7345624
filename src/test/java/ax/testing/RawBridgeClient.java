package ax.testing;

import io.vertx.core.json.JsonObject;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * A bare, blocking bridge client for protocol and security tests: it writes exactly the bytes a test
 * gives it (broken frames included), with no SDK in between, and reads the server's frames.
 */
public final class RawBridgeClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  public RawBridgeClient(String host, int port, int readTimeoutMs) throws IOException {
    socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), 5_000);
    socket.setSoTimeout(readTimeoutMs);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  public RawBridgeClient(int port) throws IOException {
    this("127.0.0.1", port, 5_000);
  }

  public void send(JsonObject frame) throws IOException {
    sendFrame(frame.encode().getBytes(StandardCharsets.UTF_8));
  }

  /** A frame with the right length header around any bytes. */
  public void sendFrame(byte[] body) throws IOException {
    out.writeInt(body.length);
    out.write(body);
    out.flush();
  }

  /** Bytes as they are, no header added (partial frames, lying headers). */
  public void sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Declares a frame length without sending the body. */
  public void sendLengthOnly(long length) throws IOException {
    out.writeInt((int) length);
    out.flush();
  }

  /** The next frame, or null when the server closed the connection. Throws on a read timeout. */
  public JsonObject read() throws IOException {
    try {
      int len = in.readInt();
      byte[] body = new byte[len];
      in.readFully(body);
      return new JsonObject(new String(body, StandardCharsets.UTF_8));
    } catch (EOFException closed) {
      return null;
    }
  }

  /** Reads until a frame matches, skipping others; null if the server closed first. */
  public JsonObject readUntil(Predicate<JsonObject> wanted) throws IOException {
    for (JsonObject f = read(); f != null; f = read()) {
      if (wanted.test(f)) {
        return f;
      }
    }
    return null;
  }

  /** True when the server closes the connection within the read timeout (frames before the close are skipped). */
  public boolean closedByServer() throws IOException {
    try {
      while (read() != null) {
        // skip what came before the close
      }
      return true;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  public void readTimeout(int ms) throws IOException {
    socket.setSoTimeout(ms);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
