package ax.api;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * Reads request bodies, each within its endpoint's limit ({@link RequestGuards#limitFor}) — a chunked
 * body too, since the limit applies to the bytes as they stream in (413 beyond it) — and only within
 * the node's {@link BodyBudget} (503 when the node already holds too many bodies). It stands where the
 * router expects its body handler, hence the interface; it is configured by its limits, not by setters.
 */
public final class BodyReader implements BodyHandler {
  private final BodyBudget budget;
  // Preallocated to the declared length: the buffer then costs what the budget reserved for it (growing
  // one instead costs up to twice the bytes received, and copies them on every doubling).
  private final BodyHandler single = BodyHandler.create(false).setBodyLimit(RequestGuards.SINGLE_BODY_LIMIT)
      .setPreallocateBodyBuffer(true);
  private final BodyHandler batch = BodyHandler.create(false).setBodyLimit(RequestGuards.BATCH_BODY_LIMIT)
      .setPreallocateBodyBuffer(true);
  private final BodyHandler none = BodyHandler.create(false).setBodyLimit(RequestGuards.NO_BODY_LIMIT);

  public BodyReader(BodyBudget budget) {
    this.budget = budget;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    long limit = RequestGuards.limitFor(req.method(), req.path());
    String declared = req.getHeader("content-length");
    boolean chunked = req.getHeader("transfer-encoding") != null;
    long reserve = chunked ? limit : declared == null ? 0 : Math.min(limit, parse(declared));
    // signed paths carry a key SigningPrecheck found; the others share one account (1 KiB bodies at most)
    String key = req.path().startsWith("/openapi/") ? req.getHeader("X-Ax-Key") : "";
    if (reserve > 0 && !budget.tryReserve(key, reserve)) {
      ctx.response().putHeader("Retry-After", "1");
      new Problem(503, "service_unavailable", "Service unavailable", "this node (or this access key) holds as many "
          + "request bodies as it may right now; retry shortly").sendAndClose(ctx);
      return;
    }
    if (reserve > 0) {
      ctx.addEndHandler(done -> budget.release(key, reserve));
    }
    (limit == RequestGuards.BATCH_BODY_LIMIT ? batch : limit == RequestGuards.SINGLE_BODY_LIMIT ? single : none)
        .handle(ctx);
  }

  private static long parse(String length) {
    try {
      return Math.max(0, Long.parseLong(length.trim()));
    } catch (NumberFormatException e) {
      return 0; // RequestGuards has refused it already
    }
  }

  // ---- the BodyHandler interface's setters: this reader is configured by its limits

  @Override
  public BodyHandler setHandleFileUploads(boolean handleFileUploads) {
    throw new UnsupportedOperationException("BodyReader never handles file uploads");
  }

  @Override
  public BodyHandler setBodyLimit(long bodyLimit) {
    throw new UnsupportedOperationException("BodyReader's limits are RequestGuards'");
  }

  @Override
  public BodyHandler setUploadsDirectory(String uploadsDirectory) {
    throw new UnsupportedOperationException("BodyReader never handles file uploads");
  }

  @Override
  public BodyHandler setMergeFormAttributes(boolean mergeFormAttributes) {
    throw new UnsupportedOperationException("BodyReader reads JSON bodies only");
  }

  @Override
  public BodyHandler setDeleteUploadedFilesOnEnd(boolean deleteUploadedFilesOnEnd) {
    throw new UnsupportedOperationException("BodyReader never handles file uploads");
  }

  @Override
  public BodyHandler setPreallocateBodyBuffer(boolean preallocate) {
    throw new UnsupportedOperationException("BodyReader never preallocates");
  }
}
