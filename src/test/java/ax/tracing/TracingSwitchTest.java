package ax.tracing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingSwitchTest {
  @Test
  void tracingIsOffWithoutAnyOtelVariable() {
    assertFalse(TracingSwitch.enabled(Map.of()));
    assertFalse(TracingSwitch.enabled(Map.of("OTEL_SERVICE_NAME", "ax", "OTEL_RESOURCE_ATTRIBUTES", "a=b")),
        "naming the service does not turn tracing on");
    assertSame(AxTracing.OFF, AxTracing.fromEnvironment(Map.of()), "off builds no SDK");
  }

  @Test
  void anOtlpEndpointTurnsItOn() {
    assertTrue(TracingSwitch.enabled(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")));
    assertTrue(TracingSwitch.enabled(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")));
    assertFalse(TracingSwitch.enabled(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")), "blank is unset");
  }

  @Test
  void aTracesExporterTurnsItOnUnlessItIsNone() {
    assertTrue(TracingSwitch.enabled(Map.of("OTEL_TRACES_EXPORTER", "logging")));
    assertTrue(TracingSwitch.enabled(Map.of("OTEL_TRACES_EXPORTER", "otlp")));
    assertFalse(TracingSwitch.enabled(Map.of("OTEL_TRACES_EXPORTER", "none",
        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")), "none wins over an endpoint");
    assertFalse(TracingSwitch.enabled(Map.of("OTEL_TRACES_EXPORTER", "NONE")));
  }

  @Test
  void theSdkDisabledFlagKeepsItOff() {
    assertFalse(TracingSwitch.enabled(Map.of("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "otlp")));
    assertTrue(TracingSwitch.enabled(Map.of("OTEL_SDK_DISABLED", "false", "OTEL_TRACES_EXPORTER", "otlp")));
  }

  @Test
  void onAnSdkIsBuiltFromTheEnvironmentWithTheLoggingOrOtlpExporter() {
    AxTracing on = AxTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "logging"));
    assertTrue(on.on());
    // OTLP defaults to http/protobuf over the JDK client (gRPC would need OkHttp, not in the jar)
    assertTrue(AxTracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")).on());
  }
}
