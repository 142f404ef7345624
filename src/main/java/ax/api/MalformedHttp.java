package ax.api;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerRequest;

/**
 * The answer to a request the HTTP decoder could not read (a Content-Length that is not one number,
 * a header line without a colon, a request line over 4 KiB, headers over 16 KiB): problem+json like
 * every other refusal, then the connection is closed — after a framing error nothing that follows on
 * it can be trusted to be a request. (A request line with an HTTP version other than 1.0/1.1 is
 * answered 501 by Vert.x itself, before any handler.)
 */
public final class MalformedHttp {
  private MalformedHttp() {
  }

  /** The server's invalid-request handler. */
  public static void answer(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    Problem problem;
    if (cause instanceof TooLongHttpLineException) {
      problem = new Problem(414, "uri_too_long", "URI too long", "the request line is longer than 4096 bytes");
    } else if (cause instanceof TooLongHttpHeaderException) {
      problem = new Problem(431, "headers_too_large", "Request header fields too large",
          "the headers are larger than 16 KiB");
    } else {
      problem = Problem.validation("not a well-formed HTTP/1.1 request"
          + (cause == null || cause.getMessage() == null ? "" : ": " + printable(cause.getMessage())));
    }
    request.response().setStatusCode(problem.status()).putHeader("content-type", Problem.CONTENT_TYPE)
        .putHeader("connection", "close").end(problem.toJson().encode())
        .onComplete(done -> request.connection().close());
  }

  /**
   * A failure of the HTTP decoder while a request's body streamed in (a chunk size that is not hex, or
   * beyond a long): the client's framing, not the server's fault.
   */
  public static boolean isDecoderFailure(Throwable failure) {
    if (failure instanceof io.netty.handler.codec.DecoderException) {
      return true;
    }
    StackTraceElement[] where = failure == null ? new StackTraceElement[0] : failure.getStackTrace();
    return where.length > 0 && where[0].getClassName().startsWith("io.netty.handler.codec.http.");
  }

  /** The decoder's message may quote the bytes it choked on: only printable ASCII goes back, at most 200. */
  private static String printable(String text) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < text.length() && b.length() < 200; i++) {
      char c = text.charAt(i);
      b.append(c >= 0x20 && c < 0x7F ? c : '?');
    }
    return b.toString();
  }
}
