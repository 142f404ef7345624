package ax.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HTTP/1.1 over a plain socket, for what java.net.http will not send: chunked bodies in chosen pieces,
 * bytes that are not UTF-8 in the request line, a header twice, a Content-Length that lies, no
 * Content-Type at all. One connection per request. The body is written by a second thread while this
 * one reads, so a server that answers before reading the body (413, 401) is heard even when it closes
 * the connection on a client still sending.
 */
final class RawHttp {
  private RawHttp() {
  }

  /** How the body is framed on the wire. */
  sealed interface Framing permits Length, Chunked, NoLength, Declared {
  }

  /** {@code Content-Length} of the body, then the body. */
  record Length() implements Framing {
  }

  /** {@code Transfer-Encoding: chunked}, the body cut into pieces of these sizes (cycled); the last chunk, then CRLF. */
  record Chunked(List<Integer> sizes) implements Framing {
  }

  /** No {@code Content-Length} and no {@code Transfer-Encoding}: the body is not sent (a request without one). */
  record NoLength() implements Framing {
  }

  /**
   * {@code Content-Length: value} as given (maybe not a number, maybe twice), then the body as it is;
   * {@code {n}}, {@code {n-1}} and {@code {n+1}} in a value stand for the body's length and its neighbours.
   */
  record Declared(List<String> values) implements Framing {
    String value(int i, int n) {
      return values.get(i).replace("{n-1}", Integer.toString(Math.max(0, n - 1))).replace("{n+1}", Integer.toString(n + 1))
          .replace("{n}", Integer.toString(n));
    }
  }

  record Request(String method, String target, List<String[]> headers, byte[] body, Framing framing) {
    /** The bytes of the head; the request line and headers are written as ISO-8859-1 (one char, one byte). */
    byte[] head(String hostHeader) {
      StringBuilder b = new StringBuilder();
      b.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
      if (hostHeader != null) {
        b.append("Host: ").append(hostHeader).append("\r\n");
      }
      for (String[] h : headers) {
        b.append(h[0]).append(": ").append(h[1]).append("\r\n");
      }
      if (framing instanceof Length) {
        b.append("Content-Length: ").append(body.length).append("\r\n");
      } else if (framing instanceof Chunked) {
        b.append("Transfer-Encoding: chunked\r\n");
      } else if (framing instanceof Declared d) {
        for (int i = 0; i < d.values().size(); i++) {
          b.append("Content-Length: ").append(d.value(i, body.length)).append("\r\n");
        }
      }
      b.append("\r\n");
      return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The body as framed on the wire. */
    byte[] wireBody() {
      if (framing instanceof NoLength) {
        return new byte[0];
      }
      if (!(framing instanceof Chunked c)) {
        return body;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 64);
      int at = 0;
      for (int i = 0; at < body.length; i++) {
        int size = Math.max(1, Math.min(body.length - at, c.sizes().isEmpty() ? body.length
            : c.sizes().get(i % c.sizes().size())));
        out.writeBytes((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body, at, size);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        at += size;
      }
      out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      return out.toByteArray();
    }
  }

  record Response(int status, List<String[]> headers, byte[] body) {
    String header(String name) {
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          return h[1];
        }
      }
      return null;
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /**
   * What came of a request: a response, or none — then {@code why} says what happened, and
   * {@code bodyUnsent} whether the server closed before taking the whole body (it may answer a
   * request it refuses without reading it, and a reset can then eat that answer).
   */
  record Exchange(Response response, String why, boolean timedOut, boolean bodyUnsent, long millis) {
  }

  static Exchange send(int port, Request request, int timeoutMs) {
    return send(port, request.head("127.0.0.1:" + port), request.wireBody(), "HEAD".equals(request.method()),
        timeoutMs);
  }

  /** Sends {@code head} and then {@code body}, bytes exactly as given, and reads one answer. */
  static Exchange send(int port, byte[] head, byte[] body, boolean headRequest, int timeoutMs) {
    long start = System.nanoTime();
    AtomicBoolean bodyDone = new AtomicBoolean(false);
    AtomicReference<Throwable> writeError = new AtomicReference<>();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      s.setSoTimeout(timeoutMs);
      s.setTcpNoDelay(true);
      OutputStream out = s.getOutputStream();
      Thread writer = new Thread(() -> {
        try {
          out.write(head);
          for (int at = 0; at < body.length; at += 65_536) {
            out.write(body, at, Math.min(65_536, body.length - at));
          }
          out.flush();
          bodyDone.set(true);
        } catch (IOException e) {
          writeError.set(e);
        }
      }, "raw-http-writer");
      writer.setDaemon(true);
      writer.start();
      Response r;
      try {
        r = read(new java.io.BufferedInputStream(s.getInputStream()), headRequest);
      } catch (SocketTimeoutException e) {
        return new Exchange(null, "no complete answer within " + timeoutMs + " ms", true, !bodyDone.get(),
            (System.nanoTime() - start) / 1_000_000);
      } catch (IOException e) {
        writer.join(2_000);
        return new Exchange(null, "connection ended without a complete answer: " + e
            + (writeError.get() == null ? "" : " (while writing: " + writeError.get() + ")"), false,
            !bodyDone.get(), (System.nanoTime() - start) / 1_000_000);
      }
      return new Exchange(r, null, false, !bodyDone.get(), (System.nanoTime() - start) / 1_000_000);
    } catch (IOException e) {
      return new Exchange(null, "cannot connect: " + e, false, true, (System.nanoTime() - start) / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Exchange(null, "interrupted", false, true, (System.nanoTime() - start) / 1_000_000);
    }
  }

  private static Response read(InputStream in, boolean head) throws IOException {
    String statusLine = line(in);
    if (statusLine == null) {
      throw new IOException("closed before a status line");
    }
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP status line: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    List<String[]> headers = new ArrayList<>();
    for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
      int colon = l.indexOf(':');
      headers.add(new String[] {l.substring(0, colon).trim(), l.substring(colon + 1).trim()});
    }
    Response bare = new Response(status, headers, new byte[0]);
    if (status == 100) {
      return read(in, head); // Expect: 100-continue answered; the real answer follows
    }
    if (head || status == 204 || status == 304 || status / 100 == 1) {
      return bare;
    }
    String te = bare.header("transfer-encoding");
    String cl = bare.header("content-length");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
      while (true) {
        String size = line(in);
        if (size == null) {
          throw new IOException("closed inside a chunked answer");
        }
        int n = Integer.parseInt(size.split(";", 2)[0].trim(), 16);
        if (n == 0) {
          for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
            // trailers
          }
          break;
        }
        body.write(in.readNBytes(n));
        line(in);
      }
    } else if (cl != null) {
      int n = Integer.parseInt(cl.trim());
      byte[] b = in.readNBytes(n);
      if (b.length < n) {
        throw new IOException("closed after " + b.length + " of " + n + " body bytes");
      }
      body.write(b);
    } else {
      body.write(in.readAllBytes());
    }
    return new Response(status, headers, body.toByteArray());
  }

  /** One CRLF-terminated line (ISO-8859-1); null at the end of the stream before any byte. */
  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\n') {
        int len = b.length();
        return len > 0 && b.charAt(len - 1) == '\r' ? b.substring(0, len - 1) : b.toString();
      }
      b.append((char) c);
    }
    if (b.length() == 0) {
      return null;
    }
    throw new IOException("closed inside a line: " + b);
  }
}
