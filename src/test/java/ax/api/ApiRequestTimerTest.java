package ax.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.openapi.router.RouterBuilder;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each request is recorded once, when its response ends, under the operation of the route that answered
 * it ("none" when a root handler refused it first or no route matched) and its status class; a request
 * whose connection closed unanswered is "unanswered". The operations are the real contract's.
 */
@ExtendWith(VertxExtension.class)
class ApiRequestTimerTest {
  private record Timed(String operation, String status, long nanos) {
  }

  private final List<Timed> timed = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private HttpClient client;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    RouterContract.load(vertx, "ax/openapi.yaml").compose(contract -> {
      Router router = Router.router(vertx);
      router.route().handler(new ApiRequestTimer((op, status, nanos) -> timed.add(new Timed(op, status, nanos))));
      router.route().handler(ctx -> {
        if (ctx.request().getHeader("x-refuse") != null) {
          ctx.response().setStatusCode(401).end(); // as SigningPrecheck does, before any route is chosen
        } else {
          ctx.next();
        }
      });
      router.get("/openapi/v1/tasks/:id")
          .putMetadata(RouterBuilder.KEY_META_DATA_OPERATION, contract.operation("getTask"))
          .handler(ctx -> {
            if (ctx.pathParam("id").equals("fail")) {
              ctx.fail(503); // answered by the route's failure handler, as ApiVerticle gives every route
            } else if (ctx.pathParam("id").equals("drop")) {
              ctx.request().connection().close();
            } else {
              vertx.setTimer(30, t -> ctx.response().setStatusCode(404).end());
            }
          })
          .failureHandler(ctx -> ctx.response().setStatusCode(ctx.statusCode()).end());
      client = vertx.createHttpClient();
      return vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false)).requestHandler(router)
          .listen(0, "127.0.0.1");
    }).onComplete(test.succeeding(s -> {
      server = s;
      test.completeNow();
    }));
  }

  @AfterEach
  void stop(VertxTestContext test) {
    server.close().onComplete(test.succeedingThenComplete());
  }

  private io.vertx.core.Future<Integer> get(String path, boolean refuse) {
    return client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", path).compose(req -> {
      if (refuse) {
        req.putHeader("x-refuse", "1");
      }
      return req.send();
    }).compose(resp -> resp.body().map(b -> resp.statusCode()));
  }

  @Test
  void recordsTheOperationThatAnsweredAndItsStatusClass(Vertx vertx, VertxTestContext test) {
    get("/openapi/v1/tasks/42", false)
        .compose(s -> get("/openapi/v1/tasks/42", true))
        .compose(s -> get("/openapi/v1/tasks/fail", false))
        .compose(s -> get("/nowhere", false))
        .compose(s -> get("/openapi/v1/tasks/drop", false).map(0).otherwise(-1))
        .onComplete(test.succeeding(done -> vertx.setTimer(200, t -> test.verify(() -> {
          assertEquals(List.of("getTask 4xx", "none 4xx", "getTask 5xx", "none 4xx", "getTask unanswered"),
              timed.stream().map(x -> x.operation() + " " + x.status()).toList());
          assertTrue(timed.get(0).nanos() >= TimeUnit.MILLISECONDS.toNanos(30),
              "timed to the end of the response: " + timed.get(0).nanos());
          test.completeNow();
        }))));
  }

  @Test
  void statusClasses() {
    assertEquals("2xx", ApiRequestTimer.statusClass(201));
    assertEquals("3xx", ApiRequestTimer.statusClass(304));
    assertEquals("4xx", ApiRequestTimer.statusClass(429));
    assertEquals("5xx", ApiRequestTimer.statusClass(503));
    assertEquals("999", ApiRequestTimer.statusClass(999));
  }
}
