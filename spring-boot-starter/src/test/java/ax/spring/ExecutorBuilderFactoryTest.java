package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.Pool;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every property is checked, and each failure names the property to fix. */
class ExecutorBuilderFactoryTest {

  private static AxExecutorProperties valid() {
    AxExecutorProperties p = new AxExecutorProperties();
    p.setServers(List.of("127.0.0.1:7000"));
    p.setToken(UnsignedTokens.forSubject("billing-1"));
    return p;
  }

  private static void assertRefused(Consumer<AxExecutorProperties> change, String property, String detail) {
    AxExecutorProperties p = valid();
    change.accept(p);
    assertThatThrownBy(() -> ExecutorBuilderFactory.create(p))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageStartingWith("ax.executor." + property + " ")
        .hasMessageContaining(detail)
        .satisfies(e -> assertThat(((AxExecutorConfigurationException) e).action())
            .contains("ax.executor." + property));
  }

  @Test
  void theExecutorIdIsTheTokensSubjectUnlessGiven() {
    AxExecutor executor = ExecutorBuilderFactory.create(valid()).handler("x", ctx -> null).build();
    try {
      assertThat(executor.executorId()).isEqualTo("billing-1");
    } finally {
      executor.close().join();
    }
  }

  @Test
  void anExplicitExecutorIdEqualToTheSubjectIsAccepted() {
    AxExecutorProperties p = valid();
    p.setExecutorId(" billing-1 ");
    AxExecutor executor = ExecutorBuilderFactory.create(p).handler("x", ctx -> null).build();
    try {
      assertThat(executor.executorId()).isEqualTo("billing-1");
    } finally {
      executor.close().join();
    }
  }

  @Test
  void missingServersAreNamed() {
    assertRefused(p -> p.setServers(List.of()), "servers", "is required");
    assertRefused(p -> p.setServers(List.of(" ")), "servers", "is required");
  }

  @Test
  void aServerWithoutPortIsNamed() {
    assertRefused(p -> p.setServers(List.of("127.0.0.1:7000", "node-2")), "servers", "'node-2'");
  }

  @Test
  void aCommaListInOneEntryIsSplit() {
    AxExecutorProperties p = valid();
    p.setServers(List.of("127.0.0.1:7000,127.0.0.1:7001"));
    AxExecutor executor = ExecutorBuilderFactory.create(p).handler("x", ctx -> null).build();
    executor.close().join(); // built, never started: both addresses parsed
  }

  @Test
  void aMissingTokenIsNamed() {
    assertRefused(p -> p.setToken(null), "token", "is required");
    assertRefused(p -> p.setToken(""), "token", "executor-token --executor-id");
  }

  @Test
  void aTokenThatIsNoJwtIsNamed() {
    assertRefused(p -> p.setToken("secret-from-the-wrong-variable"), "token", "not an executor token");
  }

  @Test
  void anExecutorIdTheTokenDoesNotCarryIsNamed() {
    assertRefused(p -> p.setExecutorId("billing-2"), "executor-id", "minted for 'billing-1'");
  }

  @Test
  void poolsBufferAndDurationsAreChecked() {
    assertRefused(p -> p.getPools().put(Pool.SLOW, 0), "pools.slow", "at least 1");
    assertRefused(p -> p.setBuffer(-1), "buffer", "≥ 0");
    assertRefused(p -> p.setRequestTimeout(Duration.ZERO), "request-timeout", "positive");
    assertRefused(p -> p.setDrainTimeout(Duration.ofSeconds(-1)), "drain-timeout", "positive");
    assertRefused(p -> p.getDedupe().setTtl(null), "dedupe.ttl", "positive");
    assertRefused(p -> p.getDedupe().setMaxEntries(0), "dedupe.max-entries", "at least 1");
  }

  @Test
  void reconnectDelaysAreChecked() {
    assertRefused(p -> p.getReconnect().setJitter(1.0), "reconnect.jitter", "[0, 1)");
    assertRefused(p -> {
      p.getReconnect().setInitial(Duration.ofSeconds(10));
      p.getReconnect().setMax(Duration.ofSeconds(5));
    }, "reconnect", "initial ≤ max");
  }
}
