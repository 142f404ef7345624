package ax.executor;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** Everything {@link AxExecutor.Builder} collected, validated, in one immutable value. */
record ExecutorSettings(List<ServerAddress> servers, String token, String executorId, String zone, PoolSizes pools,
                        int buffer, Duration requestTimeout, Duration drainTimeout, Backoff backoff,
                        Duration dedupeTtl, int dedupeMaxEntries, Clock clock) {
  /** The {@code sdk} field of register. */
  static final String SDK = "ax-java/1";
}
