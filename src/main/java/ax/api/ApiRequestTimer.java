package ax.api;

import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import io.vertx.ext.web.openapi.router.RouterBuilder;
import io.vertx.openapi.contract.Operation;

/**
 * Times every API request from its headers to the end of its response, by the contract's operationId
 * and status class ({@code ax_api_request_latency_seconds}). Vert.x's own HTTP server meters cannot
 * say this: they are summaries (no quantile across nodes), carry no route, and count every HTTP server
 * of the node, the start-up warm-up's receiver included.
 *
 * <p>The first handler of the router (a {@link PlatformHandler}, the kind Vert.x Web runs first), so
 * the time includes the refusals before the body, reading the body and the signature check. The
 * operation is read when the response ends, from the route that answered it: a request refused by a
 * root handler (on its headers, before a route was chosen) or matching no route counts as "none".
 */
public final class ApiRequestTimer implements PlatformHandler {
  /** Where a timed request goes (the node's meters). */
  @FunctionalInterface
  public interface Recorder {
    void record(String operation, String status, long nanos);
  }

  static final String NO_OPERATION = "none";
  /** A request whose response never ended (the connection closed first). */
  static final String UNANSWERED = "unanswered";
  private static final String[] STATUS_CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx"};

  private final Recorder recorder;

  public ApiRequestTimer(Recorder recorder) {
    this.recorder = recorder;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long start = System.nanoTime();
    ctx.addEndHandler(v -> recorder.record(operationOf(ctx.currentRoute()),
        ctx.response().ended() ? statusClass(ctx.response().getStatusCode()) : UNANSWERED,
        System.nanoTime() - start));
    ctx.next();
  }

  static String operationOf(Route route) {
    Object operation = route == null ? null : route.getMetadata(RouterBuilder.KEY_META_DATA_OPERATION);
    return operation instanceof Operation o ? o.getOperationId() : NO_OPERATION;
  }

  static String statusClass(int status) {
    int hundreds = status / 100;
    return hundreds >= 1 && hundreds <= 5 ? STATUS_CLASSES[hundreds - 1] : Integer.toString(status);
  }
}
