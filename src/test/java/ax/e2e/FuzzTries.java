package ax.e2e;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Lets the command line set a property's tries and seed, which {@code @Property} can only take as
 * constants: {@code -Dax.fuzz.tries=20000} for a long run, {@code -Dax.fuzz.seed=…} to replay one
 * (the seed a failure reports). Without them the annotation's bounded CI values apply.
 */
public final class FuzzTries implements AroundPropertyHook {
  static final String TRIES = "ax.fuzz.tries";
  static final String SEED = "ax.fuzz.seed";

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    String tries = System.getProperty(TRIES);
    if (tries != null && !tries.isBlank()) {
      context.attributes().setTries(Integer.parseInt(tries.trim()));
    }
    String seed = System.getProperty(SEED);
    if (seed != null && !seed.isBlank()) {
      context.attributes().setSeed(seed.trim());
    }
    return property.execute();
  }

  @Override
  public int aroundPropertyProximity() {
    return -100; // outside jqwik's own hooks, so they see the changed attributes
  }
}
