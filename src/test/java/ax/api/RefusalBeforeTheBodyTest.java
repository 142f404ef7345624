package ax.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request refused on its headers (here a declared body over the limit) is answered at once, and its
 * connection is closed only when the client has finished sending the body: a client that is still
 * writing when the answer comes must be able to finish and read the answer, not meet a reset. A
 * client that never finishes is closed after {@link LingeringClose#MAX_MS}.
 */
@ExtendWith(VertxExtension.class)
class RefusalBeforeTheBodyTest {
  private static final int TOO_LARGE = 200 * 1024;
  private HttpServer server;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    Router router = Router.router(vertx);
    router.route().handler(new RequestGuards());
    router.route().handler(BodyHandler.create(false));
    router.route().handler(ctx -> ctx.response().end("ok"));
    vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false)).requestHandler(router)
        .listen(0, "127.0.0.1").onComplete(test.succeeding(s -> {
          server = s;
          test.completeNow();
        }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    server.close().onComplete(test.succeedingThenComplete());
  }

  private static byte[] head(int contentLength) {
    return ("POST /openapi/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        + contentLength + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** Reads one answer: its head and the body its Content-Length announces. */
  private static String readAnswer(InputStream in) throws IOException {
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    int headEnd = -1;
    int length = -1;
    while (headEnd < 0 || seen.size() < headEnd + length) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + seen.size() + " bytes of the answer: " + seen);
      }
      seen.write(b);
      String text = seen.toString(StandardCharsets.ISO_8859_1);
      if (headEnd < 0 && text.endsWith("\r\n\r\n")) {
        headEnd = text.length();
        String lower = text.toLowerCase();
        int at = lower.indexOf("content-length:") + "content-length:".length();
        length = Integer.parseInt(lower.substring(at, lower.indexOf("\r\n", at)).trim());
      }
    }
    return seen.toString(StandardCharsets.ISO_8859_1);
  }

  /** Milliseconds until the server closes the socket (end of stream or a reset). */
  private static long msUntilClosed(Socket s) throws IOException {
    long t0 = System.nanoTime();
    s.setSoTimeout(10_000);
    try {
      while (s.getInputStream().read() >= 0) {
        // nothing more is expected; read until the end
      }
    } catch (java.net.SocketException reset) {
      // closed as well
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  @Test
  void aClientStillSendingTheBodyFinishesItReadsThe413AndIsThenClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.getOutputStream().write(head(TOO_LARGE));
      String answer = readAnswer(s.getInputStream());
      assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
      assertTrue(answer.contains("payload_too_large"), answer);
      assertTrue(answer.toLowerCase().contains("connection: close"), answer);

      // Closed at the answer, the next read would see the end of the stream at once (and the body's
      // next segments a reset); lingering, it waits for the body.
      s.setSoTimeout(300);
      assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(),
          "the connection was closed while the client still had a body to send");

      OutputStream out = s.getOutputStream();
      byte[] chunk = new byte[8 * 1024];
      java.util.Arrays.fill(chunk, (byte) ' ');
      for (int sent = 0; sent < TOO_LARGE; sent += chunk.length) {
        out.write(chunk);
      }
      out.flush();
      long ms = msUntilClosed(s);
      assertTrue(ms < LingeringClose.MAX_MS, "closed " + ms + " ms after the body ended, not at its end");
    }
  }

  @Test
  void aClientThatNeverSendsTheBodyIsClosedAfterTheLingerBound() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      long t0 = System.nanoTime();
      s.getOutputStream().write(head(TOO_LARGE));
      String answer = readAnswer(s.getInputStream());
      assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
      msUntilClosed(s);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue(ms >= LingeringClose.MAX_MS - 100 && ms < LingeringClose.MAX_MS + 2_000,
          "closed " + ms + " ms after the request");
    }
  }

  @Test
  void aRefusalAfterTheWholeBodyArrivedClosesAtOnce() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      // the body came with the headers, so nothing is left to wait for: 415 for a non-JSON body
      s.getOutputStream().write(("POST /openapi/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
          + "Content-Length: 2\r\n\r\nhi").getBytes(StandardCharsets.US_ASCII));
      String answer = readAnswer(s.getInputStream());
      assertTrue(answer.startsWith("HTTP/1.1 415"), answer);
      long ms = msUntilClosed(s);
      assertTrue(ms < LingeringClose.MAX_MS / 2, "closed after " + ms + " ms");
    }
  }

  @Test
  void aRequestWithinTheLimitIsServed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.getOutputStream().write(head(2));
      s.getOutputStream().write("{}".getBytes(StandardCharsets.US_ASCII));
      assertEquals("ok", readAnswer(s.getInputStream()).split("\r\n\r\n", 2)[1]);
    }
  }
}
