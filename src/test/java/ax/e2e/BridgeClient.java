package ax.e2e;

import io.vertx.core.json.JsonObject;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A bare TCP bridge client for the protocol and security tests: it writes exactly the frames a test
 * gives it (including broken ones), with no SDK in between.
 */
final class BridgeClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  BridgeClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(5_000);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  void send(JsonObject frame) throws IOException {
    sendRaw(frame.encode().getBytes(StandardCharsets.UTF_8));
  }

  void sendRaw(byte[] body) throws IOException {
    out.writeInt(body.length);
    out.write(body);
    out.flush();
  }

  /** Declares a frame length without sending the body (the server must not wait to buffer it). */
  void sendLengthOnly(int length) throws IOException {
    out.writeInt(length);
    out.flush();
  }

  /** The next frame, or null when the server closed the connection. */
  JsonObject read() throws IOException {
    try {
      int len = in.readInt();
      byte[] body = new byte[len];
      in.readFully(body);
      return new JsonObject(new String(body, StandardCharsets.UTF_8));
    } catch (EOFException closed) {
      return null;
    }
  }

  /** True when the server has closed the connection (reads EOF within the socket timeout). */
  boolean closedByServer() throws IOException {
    try {
      while (true) {
        if (read() == null) {
          return true;
        }
      }
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
