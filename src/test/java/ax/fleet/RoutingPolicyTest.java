package ax.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.fleet.RoutingPolicy.Strategy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoutingPolicyTest {

  @Test
  void overridesApplyToTheirTaskTypesAndTheDefaultToTheRest() {
    RoutingPolicy policy = RoutingPolicy.parse("weighted_random",
        "order.close=consistent_hash, coupon.grant = weighted_random", null);

    assertEquals(Strategy.CONSISTENT_HASH, policy.strategyFor("order.close"));
    assertEquals(Strategy.WEIGHTED_RANDOM, policy.strategyFor("coupon.grant"));
    assertEquals(Strategy.WEIGHTED_RANDOM, policy.strategyFor("anything.else"));
    assertInstanceOf(ConsistentHashSelector.class, policy.selectorFor("order.close"));
    assertInstanceOf(WeightedRandomSelector.class, policy.selectorFor("anything.else"));
    assertEquals(List.of("order.close", "coupon.grant"), List.copyOf(policy.overrides().keySet()));
  }

  @Test
  void taskTypesWithTheSameStrategyShareOneSelector() {
    RoutingPolicy policy = RoutingPolicy.parse("consistent_hash", "a=consistent_hash", null);

    assertSame(policy.selectorFor("a"), policy.selectorFor("b"));
  }

  @Test
  void blankOrMissingOverridesMeanNone() {
    assertEquals(Map.of(), RoutingPolicy.parse("consistent_hash", "  ", null).overrides());
    assertEquals(Map.of(), RoutingPolicy.parse("consistent_hash", null, null).overrides());
    assertEquals(Strategy.CONSISTENT_HASH, RoutingPolicy.parse(" Consistent_Hash ", "", null).defaultStrategy());
  }

  @Test
  void theZoneReachesTheSelectors() {
    RoutingPolicy policy = RoutingPolicy.parse("weighted_random", "x=consistent_hash", "z1");
    List<ExecutorView> fleet = List.of(new ExecutorView("near", "z1", 1, 0, 0.1, true),
        new ExecutorView("far", "z2", 64, 0, 0.1, true));

    for (int i = 0; i < 100; i++) {
      assertEquals("near", policy.selectorFor("y").choose(fleet, "k" + i).orElseThrow());
      assertEquals("near", policy.selectorFor("x").choose(fleet, "k" + i).orElseThrow());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"round_robin", "", "weighted-random"})
  void anUnknownDefaultStrategyIsRefusedWithTheValidNames(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RoutingPolicy.parse(text, null, null));

    assertTrue(e.getMessage().contains("weighted_random or consistent_hash"), e.getMessage());
  }

  @Test
  void aNullDefaultStrategyIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> RoutingPolicy.parse(null, null, null));
  }

  @Test
  void anOverrideWithAnUnknownStrategyNamesTheTaskType() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RoutingPolicy.parse("weighted_random", "order.close=consistant_hash", null));

    assertTrue(e.getMessage().contains("\"order.close\"") && e.getMessage().contains("consistant_hash"),
        e.getMessage());
  }

  @Test
  void anOverrideWithoutEqualsSignIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RoutingPolicy.parse("weighted_random", "order.close:consistent_hash", null));

    assertTrue(e.getMessage().contains("has no '='"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"=consistent_hash", "order close=consistent_hash", "a=consistent_hash,,b=weighted_random",
      "a=consistent_hash,", "a=consistent_hash,a=weighted_random", "a=consistent_hash=x"})
  void malformedOverridesAreRefused(String text) {
    assertThrows(IllegalArgumentException.class, () -> RoutingPolicy.parse("weighted_random", text, null));
  }

  @Test
  void aDuplicateTaskTypeSaysSo() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RoutingPolicy.parse("weighted_random", "a=consistent_hash,a=weighted_random", null));

    assertEquals("routing override for \"a\" is given twice", e.getMessage());
  }
}
