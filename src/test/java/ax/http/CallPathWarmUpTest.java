package ax.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The warm-up makes its calls through a real invoker and HTTP client to its own loopback receiver, though
 * the allow-list would refuse loopback to a task; and it never fails a node's start, even when no call
 * gets through.
 */
@ExtendWith(VertxExtension.class)
class CallPathWarmUpTest {

  private static HttpTargetInvoker invoker(Vertx vertx, HttpClient client) {
    return new HttpTargetInvoker(vertx, client, new CallbackUrlPolicy(List.of()), new HostResolver(vertx));
  }

  @Test
  void everyCallIsAnsweredThroughTheRealClientThoughLoopbackIsNotAllowListed(Vertx vertx, VertxTestContext ctx) {
    CallPathWarmUp.run(vertx, invoker(vertx, vertx.createHttpClient()), 50)
        .onComplete(ctx.succeeding(answered -> ctx.verify(() -> {
          assertEquals(50, answered);
          ctx.completeNow();
        })));
  }

  @Test
  void aClientThatCannotCallCostsTheWarmthNotTheStart(Vertx vertx, VertxTestContext ctx) {
    HttpClient closed = vertx.createHttpClient();
    closed.close()
        .compose(v -> CallPathWarmUp.run(vertx, invoker(vertx, closed), 50))
        .onComplete(ctx.succeeding(answered -> ctx.verify(() -> {
          assertEquals(0, answered);
          ctx.completeNow();
        })));
  }
}
