package ax.node;

import ax.api.BodyBudget;
import ax.api.ConnectionLimits;
import ax.api.HealthHandlers;
import ax.api.TaskApi;
import ax.api.TaskSubmitter;
import ax.admin.AdminTokens;
import ax.api.AdminHandlers;
import ax.api.ApiRequestTimer;
import ax.api.auth.AdminAuthHandler;
import ax.api.auth.ApiKeyCache;
import ax.api.auth.HmacAuthHandler;
import ax.api.auth.SigningPrecheck;
import ax.api.auth.InMemoryNonceStore;
import ax.health.Readiness;
import ax.api.auth.NonceStore;
import ax.api.auth.RedisNonceStore;
import ax.ratelimit.InMemoryRateLimiter;
import ax.ratelimit.RateLimiter;
import ax.ratelimit.RedisRateLimiter;
import ax.ratelimit.RefusalMemo;
import ax.bridge.ExecutorTokens;
import ax.bus.Addresses;
import ax.bus.LeaderWatch;
import ax.bus.LocalCodec;
import ax.clock.DbClock;
import ax.clock.DbClockSync;
import ax.cluster.ClusterView;
import ax.cluster.HazelcastClusterView;
import ax.cluster.HazelcastSettings;
import ax.config.AxConfig;
import ax.delivery.DispatchSettings;
import ax.dispatch.ClaimGate;
import ax.dispatch.DispatchLoad;
import ax.dispatch.OutcomeBacklog;
import ax.fleet.RoutingPolicy;
import ax.http.AlertPoster;
import ax.http.CallPathWarmUp;
import ax.http.CallbackUrlPolicy;
import ax.http.HostResolver;
import ax.http.HttpTargetInvoker;
import ax.metrics.AxMetrics;
import ax.metrics.Registries;
import ax.store.AdminStore;
import ax.store.AlertStore;
import ax.store.ApiKeyStore;
import ax.store.AttemptStore;
import ax.store.Database;
import ax.store.DbTimeStore;
import ax.store.ExecutionStore;
import ax.store.KeyChangeListener;
import ax.store.LeaseStore;
import ax.store.NodeSlotStore;
import ax.store.ReadyListener;
import ax.store.RecurringScheduleStore;
import ax.store.ScheduleStore;
import ax.store.TaskStore;
import ax.store.WebhookStore;
import ax.task.OutcomePolicy;
import ax.task.TaskIdGenerator;
import ax.tracing.AxTracing;
import ax.verticles.AlertNodeVerticle;
import ax.verticles.AlertVerticle;
import ax.verticles.ApiVerticle;
import ax.verticles.BridgeVerticle;
import ax.verticles.DispatchVerticle;
import ax.verticles.ExecutorVerticle;
import ax.verticles.KeyChangesVerticle;
import ax.verticles.LeaderVerticle;
import ax.verticles.OccurrenceVerticle;
import ax.verticles.ReleasedTasksVerticle;
import ax.verticles.WebhookVerticle;
import ax.verticles.RecoveryScanVerticle;
import ax.verticles.WheelVerticle;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import io.vertx.sqlclient.Pool;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.logging.Logger;

/**
 * Assembles one scheduler node: migrations, the shared pool, the database clock, the node slot, the
 * bootstrap key, then the verticles — consumers first, LeaderVerticle last (its first term event must
 * find WheelVerticle, DispatchVerticle and RecoveryScanVerticle listening), the API once everything
 * behind it is up. {@link #stop()} drains: /health turns 503, the lease is resigned so a successor need
 * not wait for the TTL, and connections close.
 */
public final class AxNode {
  private static final Logger LOG = Logger.getLogger(AxNode.class.getName());

  private static final int CORES = Math.max(1, Runtime.getRuntime().availableProcessors());
  /** Unwritten call outcomes a node keeps (and writes when it can) before it starts dropping them. */
  private static final int OUTCOME_BACKLOG_CAP = 1_000_000;
  /**
   * Due tasks in the dispatchers' hands from which webhook delivery waits for them: a burst. A spread
   * of 1 000 tasks/s holds a few dozen (claimed 50 ms ahead, calls of a few ms).
   */
  private static final int WEBHOOKS_YIELD_AT = 1_000;
  /** A claim is one statement: longer than this, PostgreSQL is in trouble and the stop goes on. */
  private static final long CLAIMS_ANSWER_WAIT_MS = 3_000;

  private final AxConfig config;
  private final String holder;
  private final AxTracing tracing;
  private Vertx vertx;
  private ClusterView cluster = ClusterView.SINGLE;
  private Pool pool;
  /** Leases and the database clock: never queued behind a burst's claims and writes ({@link Database#controlPool}). */
  private Pool control;
  private NodeSlotKeeper slotKeeper;
  private DbClockSync clockSync;
  private volatile ApiVerticle api;
  private volatile boolean draining;
  private final ClaimGate claimGate = new ClaimGate();
  private OutcomeBacklog backlog;
  private String leaderDeployment;
  private String apiDeployment;
  private String bridgeDeployment;

  /** A node that traces when the standard {@code OTEL_*} variables say so ({@link AxTracing#fromEnvironment}). */
  public AxNode(AxConfig config) {
    this(config, AxTracing.fromEnvironment(System.getenv()));
  }

  public AxNode(AxConfig config, AxTracing tracing) {
    this.config = config;
    this.tracing = tracing;
    // Unique per process even when AX_NODE_ID is reused: a restarted node is a new lease holder.
    this.holder = config.nodeId() + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  public Future<AxNode> start() {
    PgConnectOptions pg = Database.connectOptions(config.pgUrl());
    LOG.info(Database.migrate(pg));

    PrometheusMeterRegistry registry = Registries.prometheus();
    return buildVertx(registry).compose(v -> {
      vertx = v;
      LOG.info(TransportLine.describe(v.isNativeTransportEnabled(), v.unavailableNativeTransportCause(),
          System.getProperty("os.name")));
      return startOn(pg, registry);
    });
  }

  /** A clustered Vert.x when cluster members are configured, else a plain one (single node). */
  private Future<Vertx> buildVertx(PrometheusMeterRegistry registry) {
    VertxOptions options = new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
        .setJvmMetricsEnabled(true).setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))
        // Per-request client metrics cost CPU on the dispatch hot path; ax_dispatch_* and ax_execute_total cover it.
        .addDisabledMetricsCategory(io.vertx.micrometer.MetricsDomain.HTTP_CLIENT)
        // Per-message event-bus metrics look up a gauge by tags for every message (a task crosses the bus from the
        // API to the wheel and on to dispatch): ~8 % of the API's CPU in a profiled burst, and nothing reads them.
        .addDisabledMetricsCategory(io.vertx.micrometer.MetricsDomain.EVENT_BUS)
        // Per-request server metrics look up meters by tags on every API request (~3 % of the API's CPU in a
        // profiled burst); ax_api_request_latency_seconds times requests by operation, ax_api_connections counts
        // the connections.
        .addDisabledMetricsCategory(io.vertx.micrometer.MetricsDomain.HTTP_SERVER))
        // epoll where Linux has it (why: ARCHITECTURE.md, "Transport")
        .setPreferNativeTransport(true);
    // tracing on: Vert.x gets the OpenTelemetry tracer (the API's server spans); off: no tracer at all
    var builder = tracing.install(Vertx.builder().withMetrics(new MicrometerMetricsFactory(registry)), options);
    AxConfig.ClusterSettings cluster = config.cluster();
    if (!cluster.enabled()) {
      return Future.succeededFuture(builder.with(options).build());
    }
    options.setEventBusOptions(new EventBusOptions().setHost(cluster.host()).setClusterPublicHost(cluster.host()));
    LOG.info("joining cluster " + cluster.members() + " from " + cluster.host() + ":" + cluster.port());
    HazelcastClusterManager manager = HazelcastSettings.clusterManager(cluster);
    return builder.with(options).withClusterManager(manager).buildClustered()
        .recover(e -> Future.failedFuture(PortInUse.explain(e, cluster.port(), "AX_CLUSTER_PORT")))
        .onSuccess(v -> this.cluster = new HazelcastClusterView(manager));
  }

  private Future<AxNode> startOn(PgConnectOptions pg, PrometheusMeterRegistry registry) {
    LocalCodec.registerAll(vertx);
    AxMetrics metrics = new AxMetrics(registry);
    pool = Database.pool(vertx, pg, config.pgPoolSize());
    control = Database.controlPool(vertx, pg);

    ApiKeyStore keyStore = new ApiKeyStore(pool, config.admin().sealer());
    DbClock clock = DbClock.system();
    clockSync = new DbClockSync(vertx, new DbTimeStore(control), clock);
    metrics.gaugeClockOffset(clockSync::offsetMillis);
    slotKeeper = new NodeSlotKeeper(vertx, new NodeSlotStore(control), holder);

    return clockSync.start(config.scheduler().clockSyncIntervalMs())
        .compose(v -> slotKeeper.start())
        .compose(slot -> bootstrapKey(keyStore).map(slot))
        .compose(slot -> keyStore.resealSecrets().map(slot))
        .compose(slot -> deployAll(slot, clock, keyStore, metrics, registry))
        .map(this);
  }

  private Future<Void> bootstrapKey(ApiKeyStore keys) {
    if (config.bootstrapKey() == null) {
      return Future.succeededFuture();
    }
    String[] parts = config.bootstrapKey().split(":", 3);
    if (parts.length < 2) {
      return Future.failedFuture(new IllegalArgumentException("AX_BOOTSTRAP_KEY must be ak:sk[:tenant]"));
    }
    return keys.upsert(parts[0], parts[1], parts.length == 3 ? parts[2] : "default");
  }

  private Future<Void> deployAll(int slot, DbClock clock, ApiKeyStore keyStore, AxMetrics metrics,
                                 PrometheusMeterRegistry registry) {
    AxConfig.SchedulerTuning tuning = config.scheduler();
    ScheduleStore scheduleStore = new ScheduleStore(pool, config.nodeId());
    ApiKeyCache keys = new ApiKeyCache(keyStore);
    CallbackUrlPolicy urlPolicy = new CallbackUrlPolicy(config.callbackAllowlist());
    HostResolver resolver = new HostResolver(vertx);
    HttpClient http = vertx.createHttpClient(
        // ax makes the client spans of its calls itself (ax.http_call, ax.webhook) and sets their headers
        new HttpClientOptions().setKeepAlive(true).setConnectTimeout(5_000).setTcpNoDelay(true)
            .setTracingPolicy(TracingPolicy.IGNORE),
        new PoolOptions().setHttp1MaxSize(tuning.httpMaxConnections()));
    OutcomePolicy outcomes = new OutcomePolicy(tuning.retryBackoff());
    backlog = new OutcomeBacklog(OUTCOME_BACKLOG_CAP);
    metrics.gaugeOutcomeBacklog(backlog::unwritten);
    DispatchLoad dispatchLoad = new DispatchLoad(backlog);
    RoutingPolicy routing = RoutingPolicy.parse(config.executors().routing(), config.executors().routingOverrides(),
        config.executors().zone());
    HttpTargetInvoker invoker = new HttpTargetInvoker(vertx, http, urlPolicy, resolver);
    TaskIdGenerator ids = new TaskIdGenerator(slot, clock::nowMillis);
    RedisAPI redis = redis();
    ConnectionLimits connections = new ConnectionLimits(vertx, ConnectionLimits.Settings.defaults());
    metrics.gaugeApiConnections(connections::open, connections::refused);
    ApiVerticle.Gate gate = new ApiVerticle.Gate(connections,
        new SigningPrecheck(keys, clock, HmacAuthHandler.SKEW_WINDOW_MS),
        BodyBudget.forThisJvm(), authHandler(keys, clock, redis),
        new AdminAuthHandler(config.admin().apiEnabled()
            ? AdminTokens.KIND.verifier(vertx, config.admin().jwtSecret()) : null),
        new ApiRequestTimer(metrics::recordApiRequest));
    AdminHandlers admin = new AdminHandlers(vertx, new AdminStore(pool, keyStore));
    Readiness readiness = readiness(redis);
    TaskStore taskStore = new TaskStore(pool);
    TaskSubmitter submitter = new TaskSubmitter(vertx, taskStore, urlPolicy, resolver, ids, slotKeeper::canIssueIds,
        clock, tuning.loadWindowMs(), LeaderWatch.attach(vertx), tracing);
    RecurringScheduleStore recurring = new RecurringScheduleStore(pool);
    WebhookStore webhooks = new WebhookStore(pool, config.nodeId());
    TaskApi handlers = new TaskApi(vertx, submitter, taskStore, new AttemptStore(pool), recurring, webhooks);
    ApiVerticle.Settings apiSettings = new ApiVerticle.Settings(contractPath(), config.httpPort(), config.nodeId());
    HealthHandlers.ClusterRecords clusterRecords = new HealthHandlers.ClusterRecords(new LeaseStore(pool),
        new NodeSlotStore(pool));
    java.util.function.Supplier<ApiVerticle> apiInstance = () -> {
      ApiVerticle v = new ApiVerticle(apiSettings, gate, handlers, admin, registry, readiness, clusterRecords);
      if (api == null) {
        api = v;
      }
      return v;
    };

    // Consumers first, LeaderVerticle last: its first term event must find every term-bound verticle
    // listening. The API once everything behind it is up.
    return vertx.deployVerticle(new KeyChangesVerticle(keys, new KeyChangeListener.Connector(Database.connectOptions(config.pgUrl()))))
        .compose(id -> vertx.deployVerticle(new WheelVerticle(scheduleStore, clock, wheelSettings(tuning), metrics)))
        // One dispatcher per core: due batches are spread over them (event-bus round robin), so claims,
        // HTTP calls and outcome writes of a burst run on every event loop instead of one.
        .compose(id -> vertx.deployVerticle(() -> new DispatchVerticle(scheduleStore, clock, invoker, keys, outcomes,
            backlog, metrics, DispatchVerticle.Settings.of(tuning.claimBatch(), tuning.completionLingerMs(),
                tuning.claimLeadMs()), tracing,
            claimGate, dispatchLoad),
            new DeploymentOptions().setInstances(CORES)))
        .compose(id -> vertx.deployVerticle(new RecoveryScanVerticle(scheduleStore, clock, outcomes, backlog, cluster,
            metrics, RecoveryScanVerticle.Settings.of(tuning.recoveryIntervalMs(), tuning.recoveryLookbackMs(),
                tuning.loadIntervalMs()))))
        .compose(id -> vertx.deployVerticle(new OccurrenceVerticle(recurring, () -> {
          if (!slotKeeper.canIssueIds()) { // another node may hold this slot now: ids could collide
            throw new IllegalStateException("node slot lease not renewed; occurrences wait for it");
          }
          return ids.nextId();
        },
            metrics, new OccurrenceVerticle.Settings(tuning.loadIntervalMs(), tuning.loadWindowMs(), 500,
                config.schedules()))))
        .compose(id -> vertx.deployVerticle(new WebhookVerticle(webhooks,
            new HttpTargetInvoker(vertx, vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setConnectTimeout(Math.min(5_000, config.webhooks().timeoutMs())).setTcpNoDelay(true)
                .setTracingPolicy(TracingPolicy.IGNORE),
                new PoolOptions().setHttp1MaxSize(config.webhooks().connections())), urlPolicy, resolver),
            keys, clock, metrics, new WebhookVerticle.Settings(config.webhooks().pollMs(), 256,
                config.webhooks().timeoutMs(), config.webhooks().backoffMs(), config.webhooks().yieldMs(),
                WEBHOOKS_YIELD_AT), tracing, dispatchLoad),
            // On a worker context, not an event loop: a round builds, signs and sends up to 256 POSTs at
            // once, which on an event loop shared with a dispatcher held its due tasks back (spread p99
            // ×2 with notify_url on every task, bench --notify); the sockets' I/O stays on the event loops.
            new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)))
        .compose(id -> vertx.deployVerticle(new ReleasedTasksVerticle(new ReadyListener.Connector(Database.connectOptions(config.pgUrl())), clock, metrics, tuning.loadWindowMs())))
        .compose(id -> vertx.deployVerticle(new ExecutorVerticle(new ExecutionStore(pool, config.nodeId()), clock,
            metrics, DispatchSettings.of(config.executors().heartbeatMs(), tuning.ackTimeoutMs(),
                config.executors().readyQueueCap()).withClaimLeadMs(tuning.claimLeadMs()), outcomes,
            routing::selectorFor, tracing)))
        .compose(id -> deployBridge(metrics))
        .compose(id -> deployAlerting(clock, metrics))
        // before it may lead: a successor's first calls must not be the ones that load the call path
        .compose(id -> CallPathWarmUp.run(vertx, invoker, CallPathWarmUp.CALLS))
        .compose(id -> vertx.deployVerticle(new LeaderVerticle(new LeaseStore(control), backlog, metrics,
            new LeaderVerticle.Settings(LeaseStore.SCHEDULER, holder, cluster.localMember(), config.leaseTtlMs()))))
        .compose(id -> {
          leaderDeployment = id;
          // One instance per core: the API's event loops share the port (Vert.x load-balances).
          return vertx.deployVerticle(apiInstance, new DeploymentOptions().setInstances(CORES))
              .recover(e -> Future.failedFuture(PortInUse.explain(e, config.httpPort(), "AX_HTTP_PORT")));
        })
        .onSuccess(id -> apiDeployment = id)
        .onSuccess(id -> LOG.info("ax node " + config.nodeId() + " (slot " + slot + ") serving on port "
            + api.actualPort()))
        .mapEmpty();
  }

  private static WheelVerticle.Settings wheelSettings(AxConfig.SchedulerTuning t) {
    return new WheelVerticle.Settings(t.tickMs(), t.wheelSize(), t.wheelWindowMs(), t.loadWindowMs(),
        t.loadIntervalMs(), t.loadBatch(), t.memoryCap(), t.claimBatch(), t.claimLeadMs());
  }

  /** Signature check, per-key token bucket and replay cache; shared through Redis when it is configured. */
  private HmacAuthHandler authHandler(ApiKeyCache keys, DbClock clock, RedisAPI redis) {
    NonceStore nonces = new InMemoryNonceStore(clock.nowMillis());
    RateLimiter limiter = new InMemoryRateLimiter();
    if (redis != null) {
      RedisNonceStore shared = new RedisNonceStore(redis, "ax:", clock::nowMillis);
      // a Redis that restarted empty gets its memory-start mark within a second, not at the first request
      shared.markMemoryStart();
      vertx.setPeriodic(1_000, id -> shared.markMemoryStart());
      nonces = shared;
      // a key over its limit is refused from memory until its next token is due, not at a Redis call each
      limiter = new RefusalMemo(new RedisRateLimiter(redis, "ax:", limiter), System::nanoTime);
    }
    return new HmacAuthHandler(keys, nonces, limiter, config.defaultRateLimit(), clock);
  }

  /** The Redis that nonces and rate limits are shared through; null when AX_REDIS_URL is not set. */
  private RedisAPI redis() {
    return config.redisUrl() == null ? null : RedisAPI.api(Redis.createClient(vertx,
        new RedisOptions().setConnectionString(config.redisUrl()).setMaxPoolSize(8).setMaxPoolWaiting(1024)));
  }

  /** What a request needs: PostgreSQL always, Redis when configured; and a node that is not draining. */
  private Readiness readiness(RedisAPI redis) {
    DbTimeStore time = new DbTimeStore(pool);
    List<Readiness.Dependency> needs = new ArrayList<>();
    needs.add(new Readiness.Dependency("postgres", time::nowMillis));
    if (redis != null) {
      needs.add(new Readiness.Dependency("redis", () -> redis.ping(List.of())));
    }
    return new Readiness(needs, () -> draining);
  }

  /** Every node serves executors when a token secret is configured (see BridgeVerticle). */
  private Future<String> deployBridge(AxMetrics metrics) {
    AxConfig.ExecutorSettings ex = config.executors();
    if (!ex.bridgeEnabled()) {
      LOG.info("no AX_EXECUTOR_JWT_SECRET: the executor bridge is off (HTTP targets only)");
      return Future.succeededFuture("");
    }
    BridgeVerticle bridge = new BridgeVerticle(new BridgeVerticle.Settings(ex.bridgeHost(), config.bridgePort(),
        ex.bridgeLimits()), ExecutorTokens.verifier(vertx, ex.jwtSecret()), metrics);
    return vertx.deployVerticle(bridge)
        .recover(e -> Future.failedFuture(PortInUse.explain(e, config.bridgePort(), "AX_BRIDGE_PORT")))
        .onSuccess(id -> bridgeDeployment = id);
  }

  /**
   * Built-in alerting when AX_ALERT_WEBHOOK_URL is set (issue 13 part 4): the rules the leader judges,
   * and on every node the reports, the no-leader rule and delivery, with an HTTP client of their own.
   */
  private Future<String> deployAlerting(DbClock clock, AxMetrics metrics) {
    AxConfig.AlertConfig a = config.alerts();
    if (!a.enabled()) {
      LOG.info("no AX_ALERT_WEBHOOK_URL: built-in alerting is off (the Prometheus rules under docker/ still apply)");
      return Future.succeededFuture("");
    }
    ax.alert.AlertSettings settings = a.settings(config.leaseTtlMs());
    AlertStore store = new AlertStore(pool);
    HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
        .setConnectTimeout(a.timeoutMs()), new PoolOptions().setHttp1MaxSize(2));
    AlertPoster poster = new AlertPoster(client, a.url(), a.timeoutMs());
    LOG.info("built-in alerting on: " + a.format().wire() + " messages, rules every " + a.evalMs() + " ms");
    return vertx.deployVerticle(new AlertVerticle(store, clock, settings))
        .compose(id -> vertx.deployVerticle(new AlertNodeVerticle(store, poster, clock, metrics,
            new AlertNodeVerticle.Settings(config.nodeId(), holder, settings, a.format()))));
  }

  /** The project's openapi.yaml, packaged into the jar by the build. */
  private static String contractPath() {
    return "ax/openapi.yaml";
  }

  public int httpPort() {
    return api == null ? -1 : api.actualPort();
  }

  /**
   * Graceful stop (a hand-over, not a crash): /health turns 503 and the API stops; the executor dispatch
   * hands nothing more over and waits for the hand-overs in flight to be acked; the dispatchers send no
   * claim more and the ones sent answer (what they claimed is called at its trigger time, below);
   * LeaderVerticle steps down and resigns its lease, and standbys hear of it at once (a successor starts
   * within a poll, not after the TTL); the HTTP calls in flight finish and their outcomes are written (fenced by attempt,
   * so a successor already leading changes nothing), for at most AX_DRAIN_TIMEOUT_MS; then the bridge
   * closes and the node slot is released. Then {@link #close()}. What a stop cut short (calls still
   * running at the drain timeout) is what a crash would leave: recovery fires it again after its
   * deadline.
   */
  public Future<Void> stop() {
    draining = true;
    if (vertx == null) {
      return Future.succeededFuture();
    }
    if (clockSync != null) {
      clockSync.stop();
    }
    long started = System.nanoTime();
    return undeploy(apiDeployment)
        .eventually(this::closeHandOvers)
        .eventually(this::claimTheHandOverHorizon)
        .eventually(this::closeClaims)
        .eventually(() -> undeploy(leaderDeployment))
        .eventually(() -> awaitOutcomesWritten(System.nanoTime() + config.drainTimeoutMs() * 1_000_000L))
        .eventually(() -> undeploy(bridgeDeployment))
        .eventually(() -> slotKeeper == null ? Future.succeededFuture() : slotKeeper.stop())
        .onComplete(ar -> LOG.info("stopped gracefully in " + (System.nanoTime() - started) / 1_000_000 + " ms"))
        .recover(e -> Future.succeededFuture());
  }

  /** How long the launcher lets {@link #stop()} run: the drain and then some. */
  public long stopTimeoutMs() {
    return config.drainTimeoutMs() + config.scheduler().ackTimeoutMs() + 15_000;
  }

  private Future<Void> closeHandOvers() {
    return vertx.eventBus().request(Addresses.EXEC_CLOSE_HAND_OVERS, null,
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(config.scheduler().ackTimeoutMs() + 5_000))
        .<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  /**
   * Has everything due within AX_HAND_OVER_HORIZON_MS claimed by this node before it resigns (see
   * {@link Addresses#WHEEL_HAND_OVER}): a successor needs ~0.1-0.3 s to lead and claim, and the tasks due
   * meanwhile were its first, late ones. A standby's wheel answers 0 at once.
   */
  private Future<Void> claimTheHandOverHorizon() {
    long horizonMs = config.handOverHorizonMs();
    if (horizonMs == 0) {
      return Future.succeededFuture();
    }
    return vertx.eventBus().<Integer>request(Addresses.WHEEL_HAND_OVER, horizonMs,
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(CLAIMS_ANSWER_WAIT_MS + 1_000))
        .onSuccess(m -> {
          if (m.body() > 0) {
            LOG.info("claimed for the hand-over: " + m.body() + " tasks due within " + horizonMs + " ms");
          }
        })
        .<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  /** No claim statement after this; resigning waits for the ones sent to answer (see {@link ClaimGate}). */
  private Future<Void> closeClaims() {
    claimGate.close();
    return awaitClaimsAnswered(System.nanoTime() + CLAIMS_ANSWER_WAIT_MS * 1_000_000L);
  }

  private Future<Void> awaitClaimsAnswered(long deadlineNanos) {
    return awaitNone(claimGate::inFlight, 2, deadlineNanos, unanswered -> LOG.warning(unanswered
        + " claim statements unanswered after " + CLAIMS_ANSWER_WAIT_MS
        + " ms; resigning anyway (the successor's recovery fires what they claimed)"));
  }

  private Future<Void> awaitOutcomesWritten(long deadlineNanos) {
    return awaitNone(() -> backlog == null ? 0 : backlog.owedCount(), 20, deadlineNanos, owed -> LOG.warning(owed
        + " calls unfinished or outcomes unwritten at AX_DRAIN_TIMEOUT_MS; recovery fires those tasks again after "
        + "their deadline"));
  }

  /**
   * Completes once {@code remaining} reads 0, looking every {@code everyMs}; at the deadline it completes
   * anyway, after telling {@code onGiveUp} how many remained. Never fails: a stop goes on.
   */
  private Future<Void> awaitNone(IntSupplier remaining, long everyMs, long deadlineNanos, IntConsumer onGiveUp) {
    int left = remaining.getAsInt();
    if (left == 0) {
      return Future.succeededFuture();
    }
    if (System.nanoTime() - deadlineNanos > 0) {
      onGiveUp.accept(left);
      return Future.succeededFuture();
    }
    Promise<Void> later = Promise.promise();
    vertx.setTimer(everyMs, id -> awaitNone(remaining, everyMs, deadlineNanos, onGiveUp).onComplete(later));
    return later.future();
  }

  /** Closes Vert.x; awaited separately because callbacks cannot run on a closing Vert.x. */
  public Future<Void> close() {
    return vertx == null ? Future.succeededFuture() : vertx.close();
  }

  private Future<Void> undeploy(String deploymentId) {
    return deploymentId == null ? Future.succeededFuture()
        : vertx.undeploy(deploymentId).recover(e -> Future.succeededFuture());
  }
}
