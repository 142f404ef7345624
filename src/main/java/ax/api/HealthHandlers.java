package ax.api;

import ax.bus.Addresses;
import ax.clock.Rfc3339;
import ax.health.Readiness;
import ax.leader.LeaderTerm;
import ax.store.LeaseStore;
import ax.store.NodeSlotStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;

/**
 * The unsigned operator endpoints about this node. Liveness ({@code /health/live}) says only that the
 * process serves HTTP — restart it when this fails. Readiness ({@code /health/ready}) says whether a
 * request sent here now can succeed: 503 while draining or while PostgreSQL (or Redis, when configured)
 * is unusable, so a load balancer stops routing to it. {@code /health} is readiness plus the node's role
 * and, with {@code detail=true}, the cluster and its executors.
 */
public final class HealthHandlers {
  private final Vertx vertx;
  private final String nodeId;
  private final Readiness readiness;
  private final LeaseStore leases;
  private final NodeSlotStore slots;

  /**
   * What {@code detail=true} reads from PostgreSQL besides the event bus: the lease (holder, epoch,
   * expiry) and the node slots (the nodes alive now, by name). Reads only; they decide nothing.
   */
  public record ClusterRecords(LeaseStore leases, NodeSlotStore slots) {
  }

  public HealthHandlers(Vertx vertx, String nodeId, Readiness readiness, ClusterRecords records) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.readiness = readiness;
    this.leases = records.leases();
    this.slots = records.slots();
  }

  /** The handler of each health operation, keyed by its operationId in openapi.yaml. */
  public Map<String, io.vertx.core.Handler<RoutingContext>> byOperationId() {
    return Map.of("healthLive", this::live, "healthReady", this::ready, "health", this::health);
  }

  private void live(RoutingContext ctx) {
    answer(ctx, 200, new JsonObject().put("status", "UP").put("node_id", nodeId));
  }

  private void ready(RoutingContext ctx) {
    readiness.check().onComplete(ar -> {
      Readiness.Report r = ar.succeeded() ? ar.result() : null;
      answer(ctx, r != null && r.ready() ? 200 : 503, readinessBody(r, ar.cause()));
    });
  }

  private void health(RoutingContext ctx) {
    boolean detail = "true".equals(ctx.request().getParam("detail"));
    Future<Readiness.Report> report = readiness.check();
    Future<LeaderTerm> term = vertx.eventBus().<LeaderTerm>request(Addresses.LEADER_STATUS, null).map(m -> m.body());
    Future.join(report, term).onComplete(done -> {
      Readiness.Report r = report.succeeded() ? report.result() : null;
      JsonObject body = readinessBody(r, report.cause());
      if (term.succeeded()) {
        body.put("role", term.result().leader() ? "leader" : "standby").put("epoch", term.result().epoch());
      } else {
        body.put("role", "standby");
      }
      Future<Void> more = detail ? addCluster(body) : Future.succeededFuture();
      more.onComplete(v -> answer(ctx, r != null && r.ready() ? 200 : 503, body));
    });
  }

  private JsonObject readinessBody(Readiness.Report r, Throwable failure) {
    JsonObject body = new JsonObject().put("node_id", nodeId);
    if (r == null) {
      return body.put("status", "UNAVAILABLE").put("reason", "readiness check failed: " + failure);
    }
    body.put("status", r.draining() ? "DRAINING" : r.reason() != null ? "UNAVAILABLE" : "UP")
        .put("checks", new JsonObject(Map.copyOf(r.checks())));
    if (r.reason() != null) {
      body.put("reason", r.reason());
    }
    return body;
  }

  private Future<Void> addCluster(JsonObject body) {
    var cm = ((io.vertx.core.internal.VertxInternal) vertx).clusterManager();
    body.put("cluster_nodes", cm == null ? new JsonArray() : new JsonArray(cm.getNodes()));
    return Future.join(addLease(body), addNodes(body), addExecutors(body)).<Void>mapEmpty()
        .recover(e -> Future.succeededFuture());
  }

  /** {@code lease}: the scheduler lease as PostgreSQL holds it (holder, epoch, expiry), whoever is asked. */
  private Future<Void> addLease(JsonObject body) {
    return leases.current(LeaseStore.SCHEDULER)
        .onSuccess(row -> row.ifPresent(l -> body.put("lease", new JsonObject().put("holder", l.holder())
            .put("epoch", l.epoch()).put("expires_at", Rfc3339.format(l.expiresAt()))
            .put("acquired_at", Rfc3339.format(l.acquiredAt())).put("held", l.held()))))
        .onFailure(e -> body.put("lease_error", "could not read the lease: " + e.getMessage()))
        .<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  /** {@code nodes}: the ax nodes alive now (each renews a node slot), by their process-unique name. */
  private Future<Void> addNodes(JsonObject body) {
    return slots.live()
        .onSuccess(live -> {
          JsonArray nodes = new JsonArray();
          live.forEach(n -> nodes.add(new JsonObject().put("holder", n.holder()).put("slot", n.slot())
              .put("expires_at", Rfc3339.format(n.expiresAt()))));
          body.put("nodes", nodes);
        })
        .onFailure(e -> body.put("nodes_error", "could not read the node slots: " + e.getMessage()))
        .<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  private Future<Void> addExecutors(JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.EXEC_STATS, null, new DeliveryOptions().setSendTimeout(2_000))
        .onSuccess(m -> body.put("executors", m.body().getJsonArray("executors"))
            .put("leader_node", m.body().getString("node_id")).put("ready_queue", m.body().getInteger("ready_queue")))
        .onFailure(e -> body.put("executors_error", "no leader answered: " + e.getMessage()))
        .<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  private static void answer(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .putHeader("cache-control", "no-store").end(body.encode());
  }
}
