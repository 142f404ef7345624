package ax.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ConnectionLimits on a real HTTP server with deadlines of a few hundred milliseconds: a client that
 * sends nothing, drips its headers, drips its body or idles between requests is closed when its time
 * is up; one over the connection cap is closed at once.
 */
@ExtendWith(VertxExtension.class)
class ConnectionLimitsTest {
  private static final long FIRST = 400;
  private static final long BODY = 800;
  private static final long KEEP_ALIVE = 1_200;
  private ConnectionLimits limits;
  private HttpServer server;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    limits = new ConnectionLimits(vertx, new ConnectionLimits.Settings(3, FIRST, BODY, KEEP_ALIVE));
    Router router = Router.router(vertx);
    router.route().handler(limits);
    router.route().handler(BodyHandler.create(false));
    router.route().handler(ctx -> ctx.response().end("ok"));
    vertx.createHttpServer(new io.vertx.core.http.HttpServerOptions().setHttp2ClearTextEnabled(false))
        .connectionHandler(limits::opened).requestHandler(router).listen(0, "127.0.0.1")
        .onComplete(test.succeeding(s -> {
          server = s;
          test.completeNow();
        }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    server.close().onComplete(test.succeedingThenComplete());
  }

  /** Milliseconds until the server closes the socket, reading (and keeping) whatever it answers. */
  private static long msUntilClosed(Socket s, StringBuilder answer) throws IOException {
    long t0 = System.nanoTime();
    s.setSoTimeout(10_000);
    InputStream in = s.getInputStream();
    byte[] buf = new byte[1024];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        answer.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (java.net.SocketException reset) {
      // closed as well
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  @Test
  void aConnectionThatSendsNothingIsClosedWhenItsFirstRequestIsDue() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      long ms = msUntilClosed(s, new StringBuilder());
      assertTrue(ms >= FIRST - 50 && ms < FIRST + 1_000, "closed after " + ms + " ms");
    }
  }

  @Test
  void headersDrippedByteByByteDoNotBuyMoreTime() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      Thread drip = new Thread(() -> {
        try {
          for (byte b : "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes(StandardCharsets.US_ASCII)) {
            s.getOutputStream().write(b);
            Thread.sleep(50);
          }
        } catch (IOException | InterruptedException closed) {
          // the server closed it
        }
      });
      drip.start();
      long ms = msUntilClosed(s, new StringBuilder());
      drip.interrupt();
      assertTrue(ms >= FIRST - 50 && ms < FIRST + 1_000, "closed after " + ms + " ms");
    }
  }

  @Test
  void aBodyThatDoesNotArriveInTimeIs408AndClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.getOutputStream().write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":"
          .getBytes(StandardCharsets.US_ASCII));
      StringBuilder answer = new StringBuilder();
      long ms = msUntilClosed(s, answer);
      assertTrue(ms >= BODY - 50 && ms < BODY + 1_000, "closed after " + ms + " ms: " + answer);
      assertTrue(answer.toString().startsWith("HTTP/1.1 408"), answer.toString());
      assertTrue(answer.toString().contains("request_timeout"), answer.toString());
    }
  }

  @Test
  void aRequestInTimeIsServedAndTheConnectionThenIdlesUntilItsKeepAliveEnds() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      StringBuilder answer = new StringBuilder();
      long ms = msUntilClosed(s, answer);
      assertTrue(answer.toString().startsWith("HTTP/1.1 200"), answer.toString());
      assertTrue(ms >= KEEP_ALIVE - 50 && ms < KEEP_ALIVE + 1_000, "closed after " + ms + " ms");
    }
  }

  @Test
  void aConnectionOverTheCapIsClosedAtOnce(Vertx vertx) throws Exception {
    try (Socket a = new Socket("127.0.0.1", server.actualPort());
         Socket b = new Socket("127.0.0.1", server.actualPort());
         Socket c = new Socket("127.0.0.1", server.actualPort())) {
      long deadline = System.currentTimeMillis() + 2_000;
      while (limits.open() < 3 && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(3, limits.open());
      assertEquals(0, limits.refused());
      try (Socket d = new Socket("127.0.0.1", server.actualPort())) {
        long ms = msUntilClosed(d, new StringBuilder());
        assertTrue(ms < FIRST - 100, "the fourth connection lived " + ms + " ms");
      }
      assertEquals(3, limits.open());
      assertEquals(1, limits.refused(), "counted for ax_api_connections_refused_total");
    }
  }
}
