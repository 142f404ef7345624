package ax.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;

/**
 * Closes a connection after a refusal sent before the body was read, once the client has finished
 * sending that body: the rest is read and thrown away first, as nginx's lingering close does.
 *
 * <p>Why not close at once: a client still writing the body it announced (a 200 KiB task, refused by
 * its Content-Length) has its next segments answered by a TCP reset, and the reset can reach it
 * before it has read the answer — java.net.http then reports "header parser received no bytes"
 * instead of the 413. Reading on is bounded so a client that never finishes cannot hold the
 * connection: at most {@link #MAX_MS} and {@link #MAX_BYTES}, then it is closed regardless.
 */
final class LingeringClose {
  /** How long a client may take to finish sending a body nobody will read. */
  static final long MAX_MS = 2_000;
  /** How much of it is read and discarded: twice the largest body any endpoint takes. */
  static final long MAX_BYTES = 2 * RequestGuards.BATCH_BODY_LIMIT;

  private LingeringClose() {
  }

  static void afterBody(Vertx vertx, HttpServerRequest request) {
    HttpConnection connection = request.connection();
    if (request.isEnded()) {
      connection.close();
      return;
    }
    long deadline = vertx.setTimer(MAX_MS, id -> connection.close());
    Runnable closeNow = () -> {
      vertx.cancelTimer(deadline);
      connection.close();
    };
    long[] discarded = {0};
    request.handler(chunk -> {
      discarded[0] += chunk.length();
      if (discarded[0] > MAX_BYTES) {
        closeNow.run();
      }
    });
    request.exceptionHandler(failure -> closeNow.run());
    request.endHandler(done -> closeNow.run());
    request.resume(); // the router holds a request paused until a body handler asks for it
  }
}
