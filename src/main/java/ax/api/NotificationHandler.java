package ax.api;

import ax.clock.Rfc3339;
import ax.store.WebhookStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code listTaskNotifications}: a task's webhook — its URL, where its notification stands and every
 * recorded try (issue 13). A task without {@code notify_url}, or not terminal yet, answers its URL and
 * no state.
 */
final class NotificationHandler {
  private final WebhookStore webhooks;

  NotificationHandler(WebhookStore webhooks) {
    this.webhooks = webhooks;
  }

  void handle(RoutingContext ctx) {
    ApiPrincipal who = ctx.get(ApiPrincipal.CONTEXT_KEY);
    TaskIds.withPathId(ctx, "task_id", "no such task", id -> webhooks.list(who.tenantId(), id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().isEmpty()) {
        Problem.notFound("no such task").send(ctx);
      } else {
        HttpJson.send(ctx, 200, json(ar.result().get()));
      }
    }));
  }

  static JsonObject json(WebhookStore.Notifications n) {
    JsonArray items = new JsonArray();
    for (WebhookStore.Attempt a : n.attempts()) {
      items.add(new JsonObject()
          .put("try", a.tryNumber())
          .put("node_id", a.nodeId())
          .put("started_at", Rfc3339.format(a.startedAt()))
          .put("finished_at", Rfc3339.format(a.finishedAt()))
          .put("http_status", a.httpStatus())
          .put("outcome", a.outcome())
          .put("error", a.error()));
    }
    return new JsonObject()
        .put("notify_url", n.notifyUrl())
        .put("state", n.state())
        .put("tries", n.tries())
        .put("next_attempt_at", Rfc3339.format(n.nextAttemptAt()))
        .put("items", items);
  }
}
