package ax.e2e;

import ax.signing.RequestSigning;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection over a plain socket that the test drives step by step, for what a
 * well-behaved client library will not send: headers and then a body that never comes, a chunked body
 * streamed in pieces. The test writes bytes and reads the answer (status, headers, body by
 * Content-Length) with a timeout, and can ask whether the server closed the connection.
 * ({@link RawHttp} sends one whole request and reads its answer.)
 */
final class RawConnection implements AutoCloseable {
  record Answer(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  RawConnection(int port, int readTimeoutMs) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(readTimeoutMs);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = socket.getInputStream();
  }

  /** The request line and headers, ended by the blank line; the body (if any) is up to the caller. */
  RawConnection head(String method, String target, Map<String, String> headers) throws IOException {
    StringBuilder b = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
    return write(b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
  }

  RawConnection write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  /** One chunk of a chunked body ({@code bytes.length == 0} ends the body). */
  RawConnection chunk(byte[] bytes) throws IOException {
    write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    write(bytes);
    return write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Reads one answer; throws {@link SocketTimeoutException} when none comes in the read timeout. */
  Answer read() throws IOException {
    String statusLine = line();
    if (statusLine == null) {
      throw new IOException("the server closed the connection without an answer");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String h = line(); h != null && !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    return new Answer(Integer.parseInt(statusLine.split(" ")[1]), headers, new String(body, StandardCharsets.UTF_8));
  }

  /** True when the server has closed the connection (a read sees end of stream within the timeout). */
  boolean closedByServer() {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return e.getMessage() != null && e.getMessage().contains("reset");
    }
  }

  /** The signing headers of API.md for this request, as ApiClient would send them. */
  static Map<String, String> signed(String key, String secret, String method, String path, String query, byte[] body) {
    String ts = Long.toString(System.currentTimeMillis());
    String nonce = ApiClient.newNonce();
    Map<String, String> h = new LinkedHashMap<>();
    h.put("X-Ax-Key", key);
    h.put("X-Ax-Timestamp", ts);
    h.put("X-Ax-Nonce", nonce);
    h.put("X-Ax-Signature", RequestSigning.hmacSha256Hex(secret, RequestSigning.stringToSign(method, path,
        RequestSigning.canonicalQuery(query), ts, nonce, body)));
    return h;
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      b.write(c);
    }
    return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
