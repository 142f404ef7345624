package ax.tracing;

import ax.protocol.TraceParent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tracing.opentelemetry.OpenTelemetryOptions;
import io.vertx.tracing.opentelemetry.OpenTelemetryTracingFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.logging.Logger;

/**
 * ax's spans (issue 13, part 6), one instance per node. {@link #OFF} (the default) does nothing and is
 * asked first on every hot path ({@link #on()}), so an untraced node pays one field read. On, it holds an
 * SDK built by OpenTelemetry's autoconfigure from the standard {@code OTEL_*} variables (service name
 * {@code ax} unless {@code OTEL_SERVICE_NAME} says otherwise; traces only, no metrics or logs export) and
 * gives it to Vert.x, whose tracer makes the API's HTTP server spans and keeps the current span on the
 * Vert.x context.
 *
 * <p>Trace context travels between ax's own steps as W3C {@code traceparent} strings: stored with the task
 * (V15), carried in {@code HttpTask}/{@code ReadyTask}, sent on outgoing calls and in dispatches. A span is
 * started from such a string ({@link #start}), and its own string is what the next step continues from
 * ({@link #traceparent(Span)}).
 */
public final class AxTracing {
  private static final Logger LOG = Logger.getLogger(AxTracing.class.getName());

  public static final AxTracing OFF = new AxTracing(null, null);

  /** Span names: one per step of a task's life. */
  public static final String SUBMIT = "ax.submit";
  public static final String CLAIM = "ax.claim";
  public static final String HTTP_CALL = "ax.http_call";
  public static final String DISPATCH = "ax.dispatch";
  public static final String RESULT = "ax.result";
  public static final String WEBHOOK = "ax.webhook";

  /** Attribute keys ax sets on its spans. */
  public static final String TASK_ID = "ax.task_id";
  public static final String TASK_TYPE = "ax.task_type";
  public static final String ATTEMPT = "ax.attempt";
  public static final String EXECUTOR = "ax.executor_id";
  public static final String OUTCOME = "ax.outcome";

  private static final TextMapGetter<String> FROM_STRING = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(String carrier) {
      return List.of("traceparent");
    }

    @Override
    public String get(String carrier, String key) {
      return "traceparent".equals(key) ? carrier : null;
    }
  };

  private final OpenTelemetry otel;
  private final Tracer tracer;

  private AxTracing(OpenTelemetry otel, Tracer tracer) {
    this.otel = otel;
    this.tracer = tracer;
  }

  /** Tracing on with the given OpenTelemetry (tests pass an SDK with an in-memory exporter). */
  public static AxTracing with(OpenTelemetry otel) {
    return new AxTracing(otel, otel.getTracer("ax"));
  }

  /** {@link #OFF} unless {@link TracingSwitch} says on; then the SDK from the {@code OTEL_*} variables. */
  public static AxTracing fromEnvironment(Map<String, String> env) {
    if (!TracingSwitch.enabled(env)) {
      return OFF;
    }
    Map<String, String> properties = new HashMap<>(Map.of("otel.service.name", "ax",
        // traces only: ax's metrics are Prometheus (/metrics), its logs go to stderr
        "otel.metrics.exporter", "none", "otel.logs.exporter", "none",
        // OTLP over HTTP (port 4318) with the JDK's own client: gRPC would need OkHttp, left out of the jar
        "otel.exporter.otlp.protocol", "http/protobuf"));
    env.forEach((k, v) -> {
      if (k.startsWith("OTEL_")) { // the environment the decision was made on (the process's, in production)
        properties.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
      }
    });
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        // defaults only: the process's OTEL_* variables and otel.* system properties win over these
        .addPropertiesSupplier(() -> properties)
        .disableShutdownHook()
        .build()
        .getOpenTelemetrySdk();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> sdk.shutdown().join(5, TimeUnit.SECONDS),
        "ax-otel-shutdown"));
    LOG.info("tracing on (OpenTelemetry, configured by the OTEL_* variables)");
    return with(sdk);
  }

  public boolean on() {
    return tracer != null;
  }

  /** Gives Vert.x the tracer when on (HTTP server spans, the current span on the context); else nothing. */
  public VertxBuilder install(VertxBuilder builder, VertxOptions options) {
    if (on()) {
      options.setTracingOptions(new OpenTelemetryOptions());
      return builder.withTracer(new OpenTelemetryTracingFactory(otel));
    }
    return builder;
  }

  /**
   * Starts a span of {@code kind} under {@code parent} (a traceparent; a new trace when null or invalid).
   * {@code startEpochNanos} backdates it (0: now). Only call when {@link #on()}.
   */
  public Span start(String name, SpanKind kind, String parent, long startEpochNanos) {
    var b = tracer.spanBuilder(name).setSpanKind(kind).setParent(parent(parent));
    if (startEpochNanos > 0) {
      b.setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS);
    }
    return b.startSpan();
  }

  /** As {@link #start(String, SpanKind, String, long)} under the current span (the API's server span). */
  public Span startInCurrent(String name, SpanKind kind) {
    return tracer.spanBuilder(name).setSpanKind(kind).setParent(Context.current()).startSpan();
  }

  /** The traceparent of a span, the parent of what continues from it (null for an invalid span). */
  public static String traceparent(Span span) {
    SpanContext c = span.getSpanContext();
    return c.isValid() ? TraceParent.format(c.getTraceId(), c.getSpanId(), c.isSampled()) : null;
  }

  /** Writes the span's {@code traceparent} (and {@code tracestate} if it has one) as headers. */
  public static void inject(Span span, BiConsumer<String, String> headers) {
    W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), headers, BiConsumer::accept);
  }

  /**
   * The trace headers of an outgoing call: the span's when there is one (tracing on), else the
   * {@code forwarded} traceparent as it came (tracing off, the caller sent one: ax passes it on), else null.
   */
  public static Map<String, String> outgoing(Span span, String forwarded) {
    if (span != null) {
      Map<String, String> headers = new HashMap<>(4);
      inject(span, headers::put);
      return headers;
    }
    return forwarded == null ? null : Map.of("traceparent", forwarded);
  }

  /** Ends a span, marked as an error when {@code error} is not null. */
  public static void end(Span span, String error) {
    if (error != null) {
      span.setStatus(StatusCode.ERROR, error.length() > 200 ? error.substring(0, 200) : error);
    }
    span.end();
  }

  /** The epoch-nanosecond time {@code nanosAgo} before now, to backdate a span to a measured start. */
  public static long epochNanosAgo(long nanosAgo) {
    return TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis()) - nanosAgo;
  }

  private static Context parent(String traceparent) {
    if (traceparent == null || !TraceParent.isValid(traceparent)) {
      return Context.root();
    }
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, FROM_STRING);
  }
}
