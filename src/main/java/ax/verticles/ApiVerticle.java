package ax.verticles;

import ax.api.AdminHandlers;
import ax.api.ApiErrors;
import ax.api.ApiRequestTimer;
import ax.api.BodyBudget;
import ax.api.BodyReader;
import ax.api.ConnectionLimits;
import ax.api.ConsoleAssets;
import ax.api.HealthHandlers;
import ax.api.MalformedHttp;
import ax.api.RequestGuards;
import ax.api.RouterContract;
import ax.api.TaskApi;
import ax.api.auth.AdminAuthHandler;
import ax.api.auth.HmacAuthHandler;
import ax.api.auth.SigningPrecheck;
import ax.health.Readiness;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.openapi.router.OpenAPIRoute;
import io.vertx.ext.web.openapi.router.RequestExtractor;
import io.vertx.ext.web.openapi.router.RouterBuilder;

import java.util.HashMap;
import java.util.Map;

/**
 * Serves the public API. The router is built from {@code openapi.yaml} (contract first; through
 * {@link RouterContract}, which leaves out the problem+json response bodies vertx-openapi cannot load):
 * handlers are bound by operationId, {@link HmacAuthHandler} is the {@code hmacAuth} scheme, the schema validates
 * requests, and every failure becomes problem+json ({@link ApiErrors}). Holds no scheduling state: it
 * writes to PostgreSQL and tells the wheel over the event bus.
 */
public final class ApiVerticle extends VerticleBase {
  /**
   * Hot operations whose inputs the handlers validate themselves (TaskRequestParser names the field;
   * ids and signing headers are checked in code). vertx-openapi 5.0.7 builds a new schema validator for
   * every parameter and body of every request; profiling the submit path (JFR, 200 req/s) showed about
   * a third of the API's CPU there, so the hottest paths skip it. The schema stays the contract and
   * OpenApiContractTest checks it; ContractResponsesIT checks that these handlers answer the 400s the
   * contract declares (the task id rule: {@code TaskIds}; the batch's shape: {@code BatchHandler}).
   * For the batch it is also behaviour: the schema types each element as a TaskRequest, and an element
   * that is not one must be answered in its own result (BatchHandler), not by refusing the batch.
   */
  private static final java.util.Set<String> SELF_VALIDATED = java.util.Set.of("createTask", "createTaskBatch",
      "getTask");

  private final String contractPath;
  private final int port;
  private final String nodeId;
  private final Gate gate;
  private final TaskApi tasks;
  private final AdminHandlers admin;
  private final PrometheusMeterRegistry registry;
  private final Readiness readiness;
  private final HealthHandlers.ClusterRecords clusterRecords;
  private HttpServer server;

  /**
   * @param contractPath the OpenAPI contract the router is built from (a classpath resource or a file)
   * @param port         the HTTP port; 0 picks a free one
   * @param nodeId       this node's id, shown by /health
   */
  public record Settings(String contractPath, int port, String nodeId) {
    public Settings {
      if (contractPath == null || nodeId == null || port < 0 || port > 65_535) {
        throw new IllegalArgumentException("api settings out of range: " + this);
      }
    }
  }

  /**
   * What stands between a client and a handler: how many connections and for how long, the checks
   * before the body is read (signing headers, a known key), the body budget, the signature itself, and
   * for /admin/v1 the admin token; and the clock that times each request through all of it.
   */
  public record Gate(ConnectionLimits connections, SigningPrecheck precheck, BodyBudget bodies, HmacAuthHandler auth,
                     AdminAuthHandler adminAuth, ApiRequestTimer timer) {
  }

  public ApiVerticle(Settings settings, Gate gate, TaskApi tasks, AdminHandlers admin,
                     PrometheusMeterRegistry registry, Readiness readiness,
                     HealthHandlers.ClusterRecords clusterRecords) {
    this.contractPath = settings.contractPath();
    this.port = settings.port();
    this.nodeId = settings.nodeId();
    this.gate = gate;
    this.tasks = tasks;
    this.admin = admin;
    this.registry = registry;
    this.readiness = readiness;
    this.clusterRecords = clusterRecords;
  }

  @Override
  public Future<?> start() {
    return RouterContract.load(vertx, contractPath).compose(contract -> {
      RouterBuilder rb = RouterBuilder.create(vertx, contract, RequestExtractor.withBodyHandler());
      rb.rootHandler(gate.timer());
      rb.rootHandler(gate.connections());
      rb.rootHandler(new RequestGuards());
      rb.rootHandler(gate.precheck());
      rb.rootHandler(new BodyReader(gate.bodies()));
      rb.security("hmacAuth").apiKeyHandler(gate.auth());
      rb.security("adminJwt").httpHandler(gate.adminAuth());
      Map<String, Handler<RoutingContext>> ops = new HashMap<>(tasks.byOperationId());
      ops.putAll(admin.byOperationId());
      ops.putAll(new HealthHandlers(vertx, nodeId, readiness, clusterRecords).byOperationId());
      ops.put("metrics", this::metrics);
      for (OpenAPIRoute route : rb.getRoutes()) {
        String op = route.getOperation().getOperationId();
        Handler<RoutingContext> h = ops.get(op);
        if (h == null) {
          throw new IllegalStateException("openapi.yaml declares operation " + op + " with no handler");
        }
        route.addHandler(h).addFailureHandler(ApiErrors::handle);
        if (SELF_VALIDATED.contains(op)) {
          route.setDoValidation(false);
        }
      }
      Router router = rb.createRouter();
      ConsoleAssets.mount(router); // static, unsigned: the browser signs its own API calls
      for (int status : new int[] {400, 401, 404, 405, 413, 415, 500, 503}) {
        router.errorHandler(status, ApiErrors::handle);
      }
      // No h2c: with it Vert.x waits for a connection's first bytes before it is an HTTP connection, so a
      // client that connects and sends nothing would escape ConnectionLimits (the API is HTTP/1.1).
      HttpServerOptions options = new HttpServerOptions().setPort(port).setHost("0.0.0.0")
          .setIdleTimeout(60).setCompressionSupported(false).setMaxHeaderSize(16 * 1024)
          .setHttp2ClearTextEnabled(false);
      return vertx.createHttpServer(options).connectionHandler(gate.connections()::opened)
          .invalidRequestHandler(MalformedHttp::answer).requestHandler(router).listen();
    }).onSuccess(s -> server = s);
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  private void metrics(RoutingContext ctx) {
    ctx.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(registry.scrape());
  }
}
