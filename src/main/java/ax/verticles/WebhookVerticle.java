package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.clock.DbClock;
import ax.dispatch.BurstYield;
import ax.dispatch.DispatchLoad;
import ax.dispatch.PollPace;
import ax.http.HttpTargetInvoker;
import ax.http.WebhookBody;
import ax.leader.LeaderTerm;
import ax.logging.ThrottledWarning;
import ax.metrics.AxMetrics;
import ax.store.WebhookStore.Claimed;
import ax.store.WebhookStore;
import ax.tracing.AxTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.Future;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Delivers webhooks (issue 13, R7) in the leader's term: every {@code pollMs} while it finds some (after a
 * look that finds none, the wait doubles up to {@link Settings#idlePollMs}; {@link PollPace}) it claims a
 * batch of due notifications from the outbox ({@link WebhookStore}, fenced by the term), POSTs each one — signed
 * like callbacks, the URL checked again against the allow-list and its addresses now — over its own
 * HTTP client, so a slow receiver takes webhook connections only, never the ones that fire tasks, and
 * writes the batch's outcomes in one statement. A full batch is followed by the next at once. While the
 * node's dispatchers hold a burst of due tasks, delivery waits for them, a bounded time ({@link BurstYield}).
 *
 * <p>At least once: a try whose outcome is not written (the node died, the term ended) is claimed again
 * when its claim runs out. At most {@link WebhookStore#MAX_TRIES} recorded tries, {@code backoffMs} then
 * four times that between them.
 *
 * <p>Tracing: each try is an {@code ax.webhook} client span in the task's submission trace (V15), and the
 * POST carries its traceparent; tracing off, a traceparent the submitter sent is passed on as it came.
 */
public final class WebhookVerticle extends TermBoundVerticle {
  private static final Logger LOG = Logger.getLogger(WebhookVerticle.class.getName());
  /** Every round fails while the database is down: one line per 10 s. */
  private final ThrottledWarning roundFailures = new ThrottledWarning(LOG);
  /** 4 × the default 50 ms: an idle leader looks 5 times a second, as it did before the default was 50. */
  private static final long IDLE_POLL_FACTOR = 4;

  /**
   * @param pollMs    how often the leader looks for due notifications while it finds some
   * @param batch     notifications per claim
   * @param timeoutMs one try's bound, connection to last byte
   * @param backoffMs wait after the first failed try; ×4 after the second
   * @param yieldMs   longest a busy spell holds delivery back ({@link BurstYield}); 0 never
   * @param busyAt    due tasks in the dispatchers' hands from which delivery yields to them
   */
  public record Settings(long pollMs, int batch, int timeoutMs, long backoffMs, long yieldMs, int busyAt) {
    public Settings {
      if (pollMs < 1 || batch < 1 || timeoutMs < 1 || backoffMs < 0 || yieldMs < 0 || busyAt < 1) {
        throw new IllegalArgumentException("webhook settings out of range");
      }
    }

    /** An idle leader looks this seldom at most: the longest a first notification after a quiet spell waits. */
    long idlePollMs() {
      return IDLE_POLL_FACTOR * pollMs;
    }

    /** The claim outlives the longest try, so no two deliverers ever hold the same notification. */
    long holdMs() {
      return timeoutMs + 5_000L;
    }

    long retryAfterMs(int failedTry) {
      return backoffMs * (failedTry <= 1 ? 1 : 4L * (failedTry - 1));
    }
  }

  private final WebhookStore store;
  private final HttpTargetInvoker sender;
  private final ApiKeyCache keys;
  private final DbClock clock;
  private final AxMetrics metrics;
  private final Settings settings;
  private final AxTracing tracing;
  private final DispatchLoad load;
  private final BurstYield yield;
  private long timerId = -1;
  private long backlogTimerId = -1;
  private boolean running;
  private PollPace pace;

  /** @param load the node's dispatchers' due work, shared with them: delivery yields to a burst */
  public WebhookVerticle(WebhookStore store, HttpTargetInvoker sender, ApiKeyCache keys, DbClock clock,
                         AxMetrics metrics, Settings settings, AxTracing tracing, DispatchLoad load) {
    this.tracing = tracing;
    this.load = load;
    this.yield = new BurstYield(settings.busyAt(), settings.yieldMs());
    this.store = store;
    this.sender = sender;
    this.keys = keys;
    this.clock = clock;
    this.metrics = metrics;
    this.settings = settings;
  }

  @Override
  protected void onTermStarted(LeaderTerm term) {
    running = false;
    pace = new PollPace(settings.pollMs(), settings.idlePollMs());
    backlogTimerId = vertx.setPeriodic(5_000, id -> store.backlog().onSuccess(metrics::recordWebhookBacklog));
    poll();
  }

  @Override
  protected void onTermEnded(LeaderTerm ended) {
    vertx.cancelTimer(timerId);
    vertx.cancelTimer(backlogTimerId);
  }

  private void pollIn(long delayMs) {
    timerId = vertx.setTimer(delayMs, id -> poll());
  }

  /** One look; every path that does not end the term arms the next one exactly once. */
  private void poll() {
    timerId = -1;
    if (!leading() || running) {
      return;
    }
    if (yield.shouldWait(load.dueTasksInHand(), System.nanoTime() / 1_000_000)) {
      pollIn(pace.afterSkip()); // a burst is being fired: ask again soon
      return;
    }
    running = true;
    LeaderTerm term = term();
    round(term).onComplete(ar -> {
      if (!stillIn(term)) {
        return; // the next term starts afresh (running reset)
      }
      running = false;
      if (ar.failed()) {
        long retryInMs = pace.afterLook(0); // backs off like an idle look: a database that is down gains nothing from 20 tries a second
        roundFailures.log("webhook delivery round failed; retrying in " + retryInMs + " ms", ar.cause());
        pollIn(retryInMs);
      } else if (ar.result() == settings.batch()) {
        pace.afterLook(ar.result());
        poll(); // a full batch: more may wait
      } else {
        pollIn(pace.afterLook(ar.result()));
      }
    });
  }

  /** One batch: claim, send every one, write the outcomes. How many it claimed (a full batch: more may wait). */
  private Future<Integer> round(LeaderTerm term) {
    return store.claim(term.fence(), settings.batch(), settings.holdMs()).compose(claimed -> {
      if (claimed.isEmpty()) {
        return Future.succeededFuture(0);
      }
      List<Future<WebhookStore.Outcome>> tries = new ArrayList<>(claimed.size());
      for (Claimed c : claimed) {
        tries.add(deliver(c));
      }
      return Future.join(tries).transform(v -> {
        List<WebhookStore.Outcome> outcomes = new ArrayList<>(tries.size());
        tries.forEach(f -> outcomes.add(f.result()));
        outcomes.forEach(o -> metrics.recordWebhookTry(o.delivered(), o.claim().tryNumber()));
        return store.finish(outcomes).map(applied -> claimed.size());
      });
    });
  }

  /** One try; never fails (every problem is a failed try). */
  private Future<WebhookStore.Outcome> deliver(Claimed c) {
    OffsetDateTime started = OffsetDateTime.ofInstant(Instant.ofEpochMilli(clock.nowMillis()), ZoneOffset.UTC);
    long retryAfter = settings.retryAfterMs(c.tryNumber());
    String body = WebhookBody.of(c.taskId(), c.taskType(), c.status(), c.resultJson(), c.error(), c.attempts(),
        c.finishedAt());
    Span span = null;
    if (tracing.on()) {
      span = tracing.start(AxTracing.WEBHOOK, SpanKind.CLIENT, c.traceparent(), 0);
      span.setAttribute(AxTracing.TASK_ID, Long.toString(c.taskId()));
      span.setAttribute("ax.webhook.try", c.tryNumber());
      span.setAttribute("ax.task_status", c.status());
      span.setAttribute("http.request.method", "POST");
      span.setAttribute("url.full", c.notifyUrl());
    }
    Span trySpan = span;
    return keys.find(c.apiKey()).compose(key -> key.isEmpty()
            ? Future.succeededFuture(new WebhookStore.Outcome(c, false, null,
                "the key that submitted the task no longer exists: nothing to sign with", started, retryAfter))
            : sender.post("notify_url", c.notifyUrl(), c.taskId(), body, key.get().secret(), clock.nowMillis(),
                    settings.timeoutMs(), () -> { }, AxTracing.outgoing(trySpan, c.traceparent()))
                .map(p -> new WebhookStore.Outcome(c, p.ok(), p.status() == 0 ? null : p.status(), p.error(), started,
                    retryAfter)))
        .recover(e -> Future.succeededFuture(new WebhookStore.Outcome(c, false, null, "internal error: " + e,
            started, retryAfter)))
        .onSuccess(o -> {
          if (trySpan != null) {
            if (o.httpStatus() != null) {
              trySpan.setAttribute("http.response.status_code", o.httpStatus());
            }
            AxTracing.end(trySpan, o.delivered() ? null : o.error());
          }
        });
  }
}
