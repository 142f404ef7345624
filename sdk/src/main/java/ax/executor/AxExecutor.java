package ax.executor;

import ax.protocol.Drain;
import ax.protocol.ExecutorAddresses;
import ax.protocol.Heartbeat;
import ax.protocol.Names;
import ax.protocol.Registration;
import ax.protocol.ResultBatch;
import ax.protocol.TokenClaims;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * An ax executor: connects to the scheduler through the TCP event-bus bridge, takes dispatched tasks,
 * runs them with the {@link TaskHandler}s registered by processor name and reports their results
 * (docs/executor-protocol.md).
 *
 * <pre>{@code
 * AxExecutor executor = AxExecutor.builder()
 *     .servers("10.0.0.1:7000,10.0.0.2:7000")
 *     .token(System.getenv("AX_EXECUTOR_TOKEN"))      // the executor id defaults to the token's subject
 *     .handler("invoice.send", ctx -> sendInvoice(ctx.payloadObject()))
 *     .handler("report.build", Pool.SLOW, ctx -> buildReport(ctx))
 *     .build();
 * executor.start();                                   // completes once registered
 * Runtime.getRuntime().addShutdownHook(new Thread(() -> executor.drain().join()));
 * }</pre>
 *
 * <p>Who owns what: the connection, session and result queue live on one Vert.x event-loop context
 * ({@link SessionKeeper}, {@link ResultBatcher}); handlers run on the executor's own worker pools
 * ({@link WorkerPools}); the pieces both touch ({@link Admission}, {@link DedupeWindow},
 * {@link EpochFence}, {@link ExecutorStats}) are thread-safe.
 */
public final class AxExecutor {
  private static final Logger LOG = Logger.getLogger(AxExecutor.class.getName());
  private static final long DRAIN_POLL_MS = 50;

  private final ExecutorSettings settings;
  private final Vertx vertx;
  private final boolean ownsVertx;
  private final Context context;
  private final ExecutorStats stats = new ExecutorStats();
  private final EpochFence epochs = new EpochFence();
  private final WorkerPools pools;
  private final Admission admission;
  private final Dispatcher dispatcher;
  private final ResultBatcher results;
  private final SessionKeeper keeper;
  private final List<String> processors;
  private final CompletableFuture<Void> firstSession = new CompletableFuture<>();
  private final CompletableFuture<ExecutorSummary> drained = new CompletableFuture<>();
  private boolean started;
  private boolean draining;
  /** Read from any thread so calls after close do not touch a closed Vert.x. */
  private volatile boolean closed;

  private AxExecutor(ExecutorSettings settings, Map<String, Dispatcher.Registration> handlers,
                     ExecutionRecorder recorder, ExecutorListener listener, Vertx vertx) {
    this.settings = settings;
    this.processors = List.copyOf(new TreeSet<>(handlers.keySet()));
    this.ownsVertx = vertx == null;
    this.vertx = vertx != null ? vertx : Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    this.context = this.vertx.getOrCreateContext();
    this.pools = new WorkerPools(settings.pools());
    this.admission = new Admission(settings.pools().total(), settings.buffer());
    this.results = new ResultBatcher(this.vertx, context, this::sendResults, stats);
    this.dispatcher = new Dispatcher(settings.executorId(), handlers, pools, admission,
        new DedupeWindow<>(settings.clock(), settings.dedupeTtl(), settings.dedupeMaxEntries()),
        new DedupeWindow<>(settings.clock(), settings.dedupeTtl(), settings.dedupeMaxEntries()), epochs, recorder,
        stats, results::submit);
    this.keeper = new SessionKeeper(this.vertx, settings, new Host(), listener);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String executorId() {
    return settings.executorId();
  }

  /**
   * Starts connecting. The future completes when the first session is registered; it never fails on
   * its own, because the executor keeps retrying the servers until it is drained or closed.
   */
  public CompletableFuture<Void> start() {
    onContext(() -> {
      if (!started && !closed) {
        started = true;
        keeper.start();
      }
    });
    return firstSession;
  }

  public ExecutorStats.Snapshot stats() {
    return stats.snapshot();
  }

  /**
   * Leaves gracefully: tells the scheduler (no new work), rejects new dispatches, lets running and
   * buffered tasks finish, reports every result until answered (at most the drain timeout, 30 s by
   * default, for all of it), says {@code done}, then closes. Calling it again returns the same future.
   */
  public CompletableFuture<ExecutorSummary> drain() {
    boolean scheduled = onContext(() -> {
      if (draining) {
        return;
      }
      if (closed) {
        drained.complete(summary(false));
        return;
      }
      draining = true;
      dispatcher.startDraining();
      sendDrain(false);
      long deadline = System.currentTimeMillis() + settings.drainTimeout().toMillis();
      Promise<Boolean> idle = Promise.promise();
      awaitIdle(deadline, idle);
      idle.future()
          .compose(clean -> sendDrain(true).transform(ar -> Future.succeededFuture(clean)))
          .onComplete(ar -> {
            ExecutorSummary summary = summary(ar.result());
            shutdown().onComplete(x -> drained.complete(summary));
          });
    });
    if (!scheduled) {
      drained.complete(summary(false)); // closed without a drain
    }
    return drained;
  }

  /** Stops at once: no drain, unreported results are lost to this process (the scheduler rescues them). */
  public CompletableFuture<Void> close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (closed || !onContext(() -> shutdown().onComplete(x -> done.complete(null)))) {
      done.complete(null);
    }
    return done;
  }

  /** Runs {@code action} on the executor's context; false if Vert.x is already closed. */
  private boolean onContext(Runnable action) {
    try {
      context.runOnContext(v -> action.run());
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private ExecutorSummary summary(boolean clean) {
    ExecutorStats.Snapshot s = stats.snapshot();
    return new ExecutorSummary(settings.executorId(), s.executed(), s.failed(), s.refused(), s.applied(),
        s.deduplicated(), s.rejected(), results.outstanding(), clean);
  }

  private Future<Void> shutdown() {
    if (closed) {
      return Future.succeededFuture();
    }
    closed = true;
    keeper.stop();
    pools.shutdown();
    if (!firstSession.isDone()) {
      firstSession.completeExceptionally(new IllegalStateException("executor closed before it registered"));
    }
    return ownsVertx ? vertx.close() : Future.succeededFuture();
  }

  /** Polls until nothing is in flight and every result is answered for, or the deadline passes. */
  private void awaitIdle(long deadline, Promise<Boolean> idle) {
    if (admission.inflight() == 0 && results.outstanding() == 0) {
      idle.complete(true);
      return;
    }
    if (System.currentTimeMillis() >= deadline) {
      LOG.warning("drain deadline passed with " + admission.inflight() + " task(s) in flight and "
          + results.outstanding() + " result(s) unreported");
      idle.complete(false);
      return;
    }
    results.flush(); // retry promptly instead of waiting for the next heartbeat
    vertx.setTimer(DRAIN_POLL_MS, t -> awaitIdle(deadline, idle));
  }

  private Future<JsonObject> sendDrain(boolean done) {
    return keeper.request(ExecutorAddresses.DRAIN, session -> new Drain(settings.executorId(), session, done).toJson())
        .onFailure(e -> LOG.fine(() -> "drain" + (done ? " done" : "") + " not answered: " + e.getMessage()));
  }

  private Future<JsonObject> sendResults(JsonArray batch) {
    return keeper.request(ExecutorAddresses.RESULT, session -> ResultBatch.toJson(settings.executorId(), session, batch));
  }

  /** The executor's side of {@link SessionKeeper}. */
  private final class Host implements SessionKeeper.Host {
    @Override
    public JsonObject registerBody() {
      return new Registration(settings.executorId(), processors, settings.pools().byWireName(), settings.buffer(),
          settings.zone(), ExecutorSettings.SDK).toJson();
    }

    @Override
    public JsonObject heartbeatBody(String session) {
      ExecutorStats.Snapshot s = stats.snapshot();
      return new Heartbeat(settings.executorId(), session, pools.freeByWireName(), pools.freeThreads(),
          dispatcher.backlog(), CpuLoad.perCore(), s.executed(), s.failed(), s.meanDurationMs()).toJson();
    }

    @Override
    public void onSession(SessionKeeper.Session session) {
      firstSession.complete(null);
      results.flush();
      if (draining) {
        sendDrain(false); // a new session starts LIVE; tell it we are leaving too
      }
    }

    @Override
    public void onEpoch(long epoch) {
      epochs.observe(epoch);
    }

    @Override
    public JsonObject onDispatch(JsonObject dispatch) {
      return dispatcher.onDispatch(dispatch);
    }

    @Override
    public void onHeartbeatTick() {
      results.flush();
    }
  }

  /** Configures an {@link AxExecutor}; only {@link #servers} and {@link #token} are required. */
  public static final class Builder {
    private List<ServerAddress> servers;
    private String token;
    private String executorId;
    private String zone;
    private PoolSizes pools = PoolSizes.DEFAULTS;
    private int buffer = 256;
    private final Map<String, Dispatcher.Registration> handlers = new LinkedHashMap<>();
    private ExecutionRecorder recorder = ExecutionRecorder.NONE;
    private ExecutorListener listener = new ExecutorListener() { };
    private Vertx vertx;
    private Clock clock = Clock.systemUTC();
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Backoff backoff = Backoff.defaults();
    private Duration dedupeTtl = DedupeWindow.DEFAULT_TTL;
    private int dedupeMaxEntries = DedupeWindow.DEFAULT_MAX_ENTRIES;

    private Builder() {
    }

    /** Bridge endpoints as {@code host:port,host:port}; tried in order, round-robin on failures. */
    public Builder servers(String csv) {
      this.servers = ServerAddress.parseList(csv);
      return this;
    }

    public Builder servers(List<ServerAddress> servers) {
      this.servers = List.copyOf(servers);
      return this;
    }

    /** The executor JWT ({@code ax executor-token}). */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** Defaults to the token's subject; must equal it for the scheduler to accept the registration. */
    public Builder executorId(String executorId) {
      this.executorId = executorId;
      return this;
    }

    public Builder zone(String zone) {
      this.zone = zone;
      return this;
    }

    /** Threads of one pool (defaults high 8, default 16, slow 8). */
    public Builder poolSize(Pool pool, int threads) {
      this.pools = pools.with(pool, threads);
      return this;
    }

    public Builder pools(PoolSizes sizes) {
      this.pools = Objects.requireNonNull(sizes);
      return this;
    }

    /** How many acked tasks may wait for a thread, over all pools (default 256). */
    public Builder buffer(int buffer) {
      if (buffer < 0) {
        throw new IllegalArgumentException("buffer must be ≥ 0");
      }
      this.buffer = buffer;
      return this;
    }

    /** Runs {@code processor} tasks in the pool the scheduler chose (its {@code pool} field). */
    public Builder handler(String processor, TaskHandler handler) {
      return handler(processor, null, handler);
    }

    /** Runs {@code processor} tasks always in {@code pool}, whatever the dispatch says. */
    public Builder handler(String processor, Pool pool, TaskHandler handler) {
      if (processor == null || processor.isBlank()) {
        throw new IllegalArgumentException("processor name is blank");
      }
      handlers.put(processor, new Dispatcher.Registration(Objects.requireNonNull(handler), pool));
      return this;
    }

    /** Told about every execution started (e.g. {@link FileExecutionRecorder}). */
    public Builder recorder(ExecutionRecorder recorder) {
      this.recorder = Objects.requireNonNull(recorder);
      return this;
    }

    public Builder listener(ExecutorListener listener) {
      this.listener = Objects.requireNonNull(listener);
      return this;
    }

    /** Use this Vert.x instance (not closed by the executor); by default the executor makes its own. */
    public Builder vertx(Vertx vertx) {
      this.vertx = vertx;
      return this;
    }

    /** Clock of the dedupe window. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /** How long a register / result / drain request waits for its answer (default 10 s). */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /** The bound on {@link AxExecutor#drain()} (default 30 s). */
    public Builder drainTimeout(Duration timeout) {
      this.drainTimeout = positive(timeout, "drainTimeout");
      return this;
    }

    public Builder reconnectBackoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff);
      return this;
    }

    /** Dedupe window (default 5 min, 100 000 entries). */
    public Builder dedupeWindow(Duration ttl, int maxEntries) {
      this.dedupeTtl = positive(ttl, "dedupe ttl");
      this.dedupeMaxEntries = maxEntries;
      return this;
    }

    /** @throws IllegalArgumentException naming the first bad or missing setting */
    public AxExecutor build() {
      if (servers == null || servers.isEmpty()) {
        throw new IllegalArgumentException("servers are required");
      }
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("token is required");
      }
      if (handlers.isEmpty()) {
        throw new IllegalArgumentException("register at least one handler");
      }
      String id = executorId != null ? executorId : TokenClaims.unverifiedSubject(token);
      Names.requireExecutorId(id);
      ExecutorSettings settings = new ExecutorSettings(servers, token, id, zone, pools, buffer, requestTimeout,
          drainTimeout, backoff, dedupeTtl, dedupeMaxEntries, clock);
      return new AxExecutor(settings, handlers, recorder, listener, vertx);
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive");
      }
      return d;
    }
  }
}
