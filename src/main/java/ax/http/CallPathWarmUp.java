package ax.http;

import ax.task.HttpTask;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes a few hundred HTTP-target calls to a receiver of its own on loopback before the node may lead, through
 * the same client, signing and send path as real calls. A node's first calls otherwise load and interpret
 * that path while their tasks wait: a standby that had never called anything, taking over in a rolling
 * restart, released its first second of tasks on time and delivered them up to 100-300 ms late
 * (RollingRestartIT); a fresh node's first loopback call takes 220-320 ms, the next ones 1-2 ms. Nothing
 * leaves the machine and nothing is stored; a failure only costs the warmth (and says so).
 */
public final class CallPathWarmUp {
  private static final Logger LOG = Logger.getLogger(CallPathWarmUp.class.getName());
  /** Enough for C1 to compile the path's hottest methods (its threshold is a few hundred calls). */
  public static final int CALLS = 300;

  private CallPathWarmUp() {
  }

  /** How many of {@code calls} were answered 2xx, in turn; stops at the first that was not. Never fails. */
  public static Future<Integer> run(Vertx vertx, HttpTargetInvoker invoker, int calls) {
    long started = System.nanoTime();
    HttpServer receiver = vertx.createHttpServer().requestHandler(req -> req.body()
        .onComplete(body -> req.response().putHeader("content-type", "application/json").end("{\"ok\":true}")));
    return receiver.listen(0, "127.0.0.1")
        .compose(server -> callInTurn(invoker, server.actualPort(), calls, 0))
        .eventually(receiver::close)
        .onSuccess(answered -> LOG.log(answered == calls ? Level.FINE : Level.WARNING, () -> "call path warm-up: "
            + answered + " of " + calls + " loopback calls answered in " + (System.nanoTime() - started) / 1_000_000
            + " ms" + (answered == calls ? "" : " (the first real calls will be slower)")))
        .recover(e -> {
          LOG.warning("warming the call path failed (the first real calls will be slower): " + e);
          return Future.succeededFuture(0);
        });
  }

  private static Future<Integer> callInTurn(HttpTargetInvoker invoker, int port, int calls, int answered) {
    if (answered == calls) {
      return Future.succeededFuture(answered);
    }
    long now = System.currentTimeMillis();
    HttpTask task = new HttpTask(answered, 1, "warm-up", "ax.warm_up", now, now, 0, "{\"n\":" + answered + "}",
        "http://127.0.0.1:" + port + "/", 5_000, 0, 0, null);
    return invoker.invokeLoopback(task, port, "warm-up-secret-not-used-for-anything", now)
        .compose(outcome -> outcome.success() ? callInTurn(invoker, port, calls, answered + 1)
            : Future.succeededFuture(answered));
  }
}
