package ax.tracing;

import java.util.Locale;
import java.util.Map;

/**
 * Whether a node traces at all, decided from the environment alone (pure; no OpenTelemetry class is
 * touched): off unless {@code OTEL_EXPORTER_OTLP_ENDPOINT} (or its traces-only form
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}) or {@code OTEL_TRACES_EXPORTER} is set. Off, no SDK is built,
 * Vert.x gets no tracer and ax makes no span. {@code OTEL_TRACES_EXPORTER=none} and
 * {@code OTEL_SDK_DISABLED=true} keep it off whatever else is set, as they do in every OpenTelemetry SDK.
 */
public final class TracingSwitch {
  private TracingSwitch() {
  }

  public static boolean enabled(Map<String, String> env) {
    if ("true".equalsIgnoreCase(trimmed(env.get("OTEL_SDK_DISABLED")))) {
      return false;
    }
    String exporter = trimmed(env.get("OTEL_TRACES_EXPORTER"));
    if (exporter != null) {
      return !exporter.toLowerCase(Locale.ROOT).equals("none");
    }
    return trimmed(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")) != null
        || trimmed(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) != null;
  }

  private static String trimmed(String v) {
    return v == null || v.isBlank() ? null : v.trim();
  }
}
