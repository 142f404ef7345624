package ax.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.config.AxConfig;
import ax.node.AxNode;
import ax.protocol.TraceParent;
import ax.testing.TestPostgres;
import ax.tracing.AxTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tracing end to end, in process: a node on a real PostgreSQL with an OpenTelemetry SDK that exports to
 * memory, an HTTP target and a webhook receiver on a real HTTP server. On, the task's spans form one
 * trace (submit → claim → HTTP call → result, and the webhook) and the receiver gets the call span's
 * traceparent; off, nothing is recorded and nothing is sent unless the caller sent a traceparent itself.
 */
class TracingIT {
  private static final String KEY = "trace-ak";
  private static final String SECRET = "trace-secret-0123456789abcdef";

  /** What the receiver saw: path, the traceparent header (null if none), the body. */
  record Call(String path, String traceparent, JsonObject body) {
  }

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private OpenTelemetrySdk sdk;
  private Vertx receiverVertx;
  private HttpServer receiver;
  private TestPostgres pg;
  private AxNode node;

  @BeforeEach
  void startReceiver() throws Exception {
    sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
    receiverVertx = Vertx.vertx();
    receiver = receiverVertx.createHttpServer().requestHandler(req -> req.body().onSuccess(buf -> {
      calls.add(new Call(req.path(), req.getHeader("traceparent"), buf.toJsonObject()));
      req.response().putHeader("content-type", "application/json").end("{\"ok\":true}");
    })).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    pg = TestPostgres.create();
  }

  @AfterEach
  void stop() throws Exception {
    if (node != null) {
      node.stop().await(20, TimeUnit.SECONDS);
      node.close().await(20, TimeUnit.SECONDS);
    }
    receiverVertx.close().await(10, TimeUnit.SECONDS);
    sdk.close();
    pg.close();
  }

  @Test
  void aTracedTaskMakesOneTraceFromSubmitToWebhookAndTheTargetContinuesIt() throws Exception {
    ApiClient api = start(AxTracing.with(sdk));
    String taskId = submit(api, "trace.on").getString("task_id");

    Call call = await(() -> find("/target", taskId));
    Call webhook = await(() -> find("/hook", taskId));
    awaitTrue(() -> span(AxTracing.WEBHOOK).isPresent() && span(AxTracing.RESULT).isPresent());

    SpanData submit = span(AxTracing.SUBMIT).orElseThrow();
    SpanData claim = span(AxTracing.CLAIM).orElseThrow();
    SpanData http = span(AxTracing.HTTP_CALL).orElseThrow();
    SpanData result = span(AxTracing.RESULT).orElseThrow();
    SpanData hook = span(AxTracing.WEBHOOK).orElseThrow();
    String trace = submit.getTraceId();
    for (SpanData s : List.of(claim, http, result, hook)) {
      assertEquals(trace, s.getTraceId(), s.getName() + " is in the submit's trace");
    }
    SpanData server = exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.SERVER && s.getSpanId().equals(submit.getParentSpanId()))
        .findFirst().orElseThrow(() -> new AssertionError("ax.submit is not under the API's server span: "
            + exporter.getFinishedSpanItems()));
    assertEquals(trace, server.getTraceId());
    assertEquals(submit.getSpanId(), claim.getParentSpanId(), "claim under submit");
    assertEquals(claim.getSpanId(), http.getParentSpanId(), "HTTP call under claim");
    assertEquals(http.getSpanId(), result.getParentSpanId(), "result under the HTTP call");
    assertEquals(submit.getSpanId(), hook.getParentSpanId(), "webhook under submit");
    assertEquals(SpanKind.CLIENT, http.getKind());
    assertEquals(taskId, http.getAttributes().asMap().entrySet().stream()
        .filter(e -> e.getKey().getKey().equals(AxTracing.TASK_ID)).findFirst().orElseThrow().getValue());

    assertNotNull(call.traceparent(), "the target got a traceparent");
    assertEquals(trace, TraceParent.traceId(call.traceparent()));
    assertEquals(http.getSpanId(), TraceParent.spanId(call.traceparent()), "the target's parent is the call span");
    assertEquals(trace, TraceParent.traceId(webhook.traceparent()));
    assertEquals(hook.getSpanId(), TraceParent.spanId(webhook.traceparent()));
  }

  @Test
  void withTracingOffNothingIsRecordedAndNoTraceparentIsSentUnlessTheCallerSentOne() throws Exception {
    ApiClient api = start(AxTracing.OFF);
    String plain = submit(api, "trace.off").getString("task_id");
    Call plainCall = await(() -> find("/target", plain));
    Call plainHook = await(() -> find("/hook", plain));
    assertNull(plainCall.traceparent());
    assertNull(plainHook.traceparent());

    String callers = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    String forwarded = api.submitWithTraceparent(task("trace.off.forwarded"), callers).body().getString("task_id");
    Call forwardedCall = await(() -> find("/target", forwarded));
    assertEquals(callers, forwardedCall.traceparent(), "untraced, ax passes the caller's traceparent on as it came");
    assertEquals(callers, await(() -> find("/hook", forwarded)).traceparent());

    assertEquals(List.of(), exporter.getFinishedSpanItems(), "no span recorded with tracing off");
  }

  @Test
  void aTracedBatchIsOneSubmitSpanWhoseTraceEveryCreatedTaskCarries() throws Exception {
    ApiClient api = start(AxTracing.with(sdk));
    String batch = new JsonObject().put("tasks", new io.vertx.core.json.JsonArray().add(task("trace.batch.a"))
        .add(task("trace.batch.b"))).encode();
    ApiClient.Reply r = api.post("/openapi/v1/tasks/batch", batch);
    assertEquals(200, r.status(), String.valueOf(r.body()));
    List<String> ids = r.body().getJsonArray("results").stream().map(o -> ((JsonObject) o).getString("task_id")).toList();
    Call a = await(() -> find("/target", ids.get(0)));
    Call b = await(() -> find("/target", ids.get(1)));
    SpanData submit = span(AxTracing.SUBMIT).orElseThrow();
    assertEquals(2L, submit.getAttributes().asMap().entrySet().stream()
        .filter(e -> e.getKey().getKey().equals("ax.batch.created")).findFirst().orElseThrow().getValue());
    assertEquals(submit.getTraceId(), TraceParent.traceId(a.traceparent()), "the first task's call is in the batch's trace");
    assertEquals(submit.getTraceId(), TraceParent.traceId(b.traceparent()), "so is the second's");
    assertEquals(1, exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(AxTracing.SUBMIT)).count(),
        "one submit span for the batch");
  }

  @Test
  void untracedABatchPassesTheCallersTraceparentOnToEveryTask() throws Exception {
    ApiClient api = start(AxTracing.OFF);
    String callers = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String batch = new JsonObject().put("tasks", new io.vertx.core.json.JsonArray().add(task("trace.batch.off"))).encode();
    ApiClient.Reply r = api.postWithTraceparent("/openapi/v1/tasks/batch", batch, callers);
    assertEquals(200, r.status(), String.valueOf(r.body()));
    String id = r.body().getJsonArray("results").getJsonObject(0).getString("task_id");
    assertEquals(callers, await(() -> find("/target", id)).traceparent());
  }

  // ---- helpers

  private ApiClient start(AxTracing tracing) throws Exception {
    AxConfig config = AxConfig.fromEnv(Map.of("AX_PG_URL", pg.url(), "AX_HTTP_PORT", "0",
        "AX_BOOTSTRAP_KEY", KEY + ":" + SECRET, "AX_CALLBACK_ALLOWLIST", "127.0.0.1",
        "AX_WEBHOOK_POLL_MS", "50", "AX_LEASE_TTL_MS", "5000"), false);
    node = new AxNode(config, tracing);
    node.start().await(60, TimeUnit.SECONDS);
    return new ApiClient(node.httpPort(), KEY, SECRET);
  }

  private JsonObject task(String type) {
    String base = "http://127.0.0.1:" + receiver.actualPort();
    return new JsonObject().put("task_type", type).put("delay_ms", 300).put("payload", new JsonObject().put("n", 1))
        .put("callback_url", base + "/target").put("notify_url", base + "/hook");
  }

  private JsonObject submit(ApiClient api, String type) throws Exception {
    ApiClient.Reply r = api.submit(task(type));
    assertEquals(201, r.status(), String.valueOf(r.body()));
    return r.body();
  }

  private Call find(String path, String taskId) {
    return calls.stream().filter(c -> c.path().equals(path) && taskId.equals(c.body().getString("task_id")))
        .findFirst().orElse(null);
  }

  private Optional<SpanData> span(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst();
  }

  private static <T> T await(java.util.function.Supplier<T> found) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      T t = found.get();
      if (t != null) {
        return t;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not seen within 20 s");
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    await(() -> condition.getAsBoolean() ? Boolean.TRUE : null);
  }
}
