package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.ExecutorListener;
import ax.executor.Pool;
import ax.executor.ServerAddress;
import ax.executor.TaskContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The auto-configuration in a real application context, against a port where no scheduler listens (the
 * executor keeps trying, as it would while the scheduler is away): what binds, what stops the startup
 * and with which message, what turns it off, and what the health indicator says.
 */
@ExtendWith(OutputCaptureExtension.class)
class AxExecutorAutoConfigurationTest {
  private static final String TOKEN = UnsignedTokens.forSubject("billing-1");

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AxExecutorAutoConfiguration.class,
          AxExecutorHealthAutoConfiguration.class));

  /** {@code 127.0.0.1:port} where nothing listens: the port was free a moment ago and is closed again. */
  private static String nobodyListening() {
    try (ServerSocket s = new ServerSocket(0)) {
      return "127.0.0.1:" + s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The configuration problem that stopped the startup, wherever Spring wrapped it. */
  private static AxExecutorConfigurationException configurationFailure(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
      if (t instanceof AxExecutorConfigurationException e) {
        return e;
      }
    }
    throw new AssertionError("the startup failed for another reason", context.getStartupFailure());
  }

  private ApplicationContextRunner configured() {
    return runner.withUserConfiguration(Invoices.class)
        .withPropertyValues("ax.executor.servers=" + nobodyListening(), "ax.executor.token=" + TOKEN);
  }

  static class Invoices {
    @AxProcessor("invoice.render")
    public Object render(TaskContext ctx) {
      return Map.of("rendered", true);
    }

    @AxProcessor(value = "invoice.archive", pool = Pool.SLOW)
    public void archive(TaskContext ctx) {
    }
  }

  @Test
  void propertiesBindAsApplicationYmlWritesThem() {
    String a = nobodyListening();
    String b = nobodyListening();
    runner.withUserConfiguration(Invoices.class).withPropertyValues(
        "ax.executor.servers=" + a + "," + b, "ax.executor.token=" + TOKEN, "ax.executor.zone=eu-1",
        "ax.executor.pools.high=2", "ax.executor.pools.default=4", "ax.executor.pools.slow=1",
        "ax.executor.buffer=8", "ax.executor.request-timeout=2s", "ax.executor.drain-timeout=3s",
        "ax.executor.reconnect.initial=50ms", "ax.executor.reconnect.max=1s", "ax.executor.reconnect.jitter=0",
        "ax.executor.dedupe.ttl=1m", "ax.executor.dedupe.max-entries=1000").run(context -> {
          assertThat(context).hasNotFailed();
          AxExecutorProperties p = context.getBean(AxExecutorProperties.class);
          assertThat(p.getServers()).containsExactly(a, b);
          assertThat(p.getPools()).isEqualTo(Map.of(Pool.HIGH, 2, Pool.DEFAULT, 4, Pool.SLOW, 1));
          assertThat(p.getZone()).isEqualTo("eu-1");
          assertThat(p.getBuffer()).isEqualTo(8);
          assertThat(p.getRequestTimeout()).isEqualTo(Duration.ofSeconds(2));
          assertThat(p.getDrainTimeout()).isEqualTo(Duration.ofSeconds(3));
          assertThat(p.getReconnect().getInitial()).isEqualTo(Duration.ofMillis(50));
          assertThat(p.getReconnect().getMax()).isEqualTo(Duration.ofSeconds(1));
          assertThat(p.getReconnect().getJitter()).isZero();
          assertThat(p.getDedupe().getTtl()).isEqualTo(Duration.ofMinutes(1));
          assertThat(p.getDedupe().getMaxEntries()).isEqualTo(1000);

          AxExecutorLifecycle lifecycle = context.getBean(AxExecutorLifecycle.class);
          assertThat(lifecycle.isRunning()).isTrue();
          assertThat(lifecycle.executor()).map(AxExecutor::executorId).contains("billing-1");
          assertThat(lifecycle.processors()).containsExactly("invoice.archive", "invoice.render");
        });
  }

  @Test
  void serversMayBeAYamlList() {
    String a = nobodyListening();
    String b = nobodyListening();
    runner.withUserConfiguration(Invoices.class).withPropertyValues("ax.executor.servers[0]=" + a,
        "ax.executor.servers[1]=" + b, "ax.executor.token=" + TOKEN).run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(AxExecutorProperties.class).getServers()).containsExactly(a, b);
        });
  }

  @Test
  void aMissingTokenStopsTheStartupNamingTheProperty() {
    runner.withUserConfiguration(Invoices.class).withPropertyValues("ax.executor.servers=" + nobodyListening())
        .run(context -> assertThat(configurationFailure(context))
            .hasMessageStartingWith("ax.executor.token is required"));
  }

  @Test
  void missingServersStopTheStartupNamingTheProperty() {
    runner.withUserConfiguration(Invoices.class).withPropertyValues("ax.executor.token=" + TOKEN)
        .run(context -> assertThat(configurationFailure(context))
            .hasMessageStartingWith("ax.executor.servers is required"));
  }

  @Test
  void aBadPropertyStopsTheStartupNamingIt() {
    configured().withPropertyValues("ax.executor.pools.slow=0")
        .run(context -> assertThat(configurationFailure(context))
            .hasMessageStartingWith("ax.executor.pools.slow must be at least 1 thread"));
  }

  @Test
  void disabledThereIsNoExecutorAndNothingIsRequired() {
    runner.withUserConfiguration(Invoices.class).withPropertyValues("ax.executor.enabled=false").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).doesNotHaveBean(AxExecutorLifecycle.class);
      assertThat(context).doesNotHaveBean(AxExecutorProperties.class);
      assertThat(context).doesNotHaveBean(AxExecutorHealthIndicator.class);
    });
  }

  @Test
  void anExecutorWithoutProcessorsStopsTheStartup() {
    runner.withPropertyValues("ax.executor.servers=" + nobodyListening(), "ax.executor.token=" + TOKEN)
        .run(context -> assertThat(configurationFailure(context))
            .hasMessageContaining("no bean declares an @AxProcessor"));
  }

  static class MoreInvoices {
    @AxProcessor("invoice.render")
    public Object render(TaskContext ctx) {
      return null;
    }
  }

  @Test
  void aProcessorNameDeclaredTwiceStopsTheStartup() {
    configured().withUserConfiguration(MoreInvoices.class)
        .run(context -> assertThat(configurationFailure(context))
            .hasMessageContaining("processor 'invoice.render' is declared twice"));
  }

  @Configuration
  static class Customized {
    @Bean
    AxExecutorBuilderCustomizer renamed() {
      return builder -> builder.executorId("renamed-by-customizer");
    }
  }

  @Test
  void customizersRunAfterTheProperties() {
    configured().withUserConfiguration(Customized.class).run(context -> assertThat(
        context.getBean(AxExecutorLifecycle.class).executor()).map(AxExecutor::executorId)
        .contains("renamed-by-customizer"));
  }

  @Configuration
  static class Listening {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Bean
    ExecutorListener recordingListener() {
      return new ExecutorListener() {
        @Override
        public void disconnected(ServerAddress server, Throwable cause) {
          events.add("disconnected " + server);
        }
      };
    }
  }

  @Test
  void theApplicationsListenerHearsTheConnectionAndSoDoesTheHealthIndicator() {
    String server = nobodyListening();
    runner.withUserConfiguration(Invoices.class, Listening.class)
        .withPropertyValues("ax.executor.servers=" + server, "ax.executor.token=" + TOKEN).run(context -> {
          Listening listening = context.getBean(Listening.class);
          HealthIndicator health = context.getBean("axExecutorHealthIndicator", HealthIndicator.class);
          long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
          while (listening.events.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
          }
          assertThat(listening.events).first().isEqualTo("disconnected " + server);
          Health h = health.health();
          assertThat(h.getStatus()).isEqualTo(Status.DOWN);
          assertThat(h.getDetails()).containsEntry("state", "disconnected").containsEntry("server", server)
              .containsEntry("executorId", "billing-1").containsKey("error")
              .containsEntry("processors", List.of("invoice.archive", "invoice.render"));

          context.stop(); // drains
          assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        });
  }

  @Test
  void withoutActuatorThereIsNoHealthIndicatorButAnExecutor() {
    configured().withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).hasSingleBean(AxExecutorLifecycle.class);
      assertThat(context).doesNotHaveBean(AxExecutorHealthIndicator.class);
    });
  }

  @Test
  void aStoppedContextStartedAgainRunsANewExecutor() {
    configured().run(context -> {
      AxExecutorLifecycle lifecycle = context.getBean(AxExecutorLifecycle.class);
      AxExecutor first = lifecycle.executor().orElseThrow();
      context.stop();
      assertThat(lifecycle.isRunning()).isFalse();
      assertThat(lifecycle.executor()).isEmpty();
      context.start();
      assertThat(lifecycle.executor()).get().isNotSameAs(first)
          .extracting(AxExecutor::executorId).isEqualTo("billing-1");
    });
  }

  @Test
  void aDrainAllowedToOutlastSpringsShutdownPhaseIsWarnedAbout(CapturedOutput output) {
    configured().withPropertyValues("ax.executor.drain-timeout=40s").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(output).contains("ax.executor.drain-timeout (PT40S) is not below"
          + " spring.lifecycle.timeout-per-shutdown-phase (PT30S)");
    });
  }

  @Test
  void theDefaultDrainFitsSpringsDefaultShutdownPhase(CapturedOutput output) {
    configured().withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=26s").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(output).doesNotContain("ax.executor.drain-timeout");
    });
  }

  @EnableAutoConfiguration
  @Configuration
  static class App extends Invoices {
  }

  @Test
  void aBadSettingIsReportedAsAFailedStartupWithTheFix(CapturedOutput output) {
    assertThatThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
        .properties("ax.executor.servers=" + nobodyListening()).run().close())
        .hasRootCauseInstanceOf(AxExecutorConfigurationException.class);
    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("ax.executor.token is required")
        .contains("Fix ax.executor.token (application.yml, or the environment as AX_EXECUTOR_TOKEN)");
  }
}
