package ax.executor;

/**
 * What an executor did, returned by {@link AxExecutor#drain()}.
 *
 * @param unreported results never answered for before the drain deadline (0 after a clean drain)
 * @param clean      true if every task finished and every result was answered for in time
 */
public record ExecutorSummary(String executorId, long executed, long failed, long refused, long applied,
                              long deduplicated, long rejected, int unreported, boolean clean) {

  /** One line for logs and the CLI. */
  public String line() {
    return "executor " + executorId + " drained: executed=" + executed + " failed=" + failed + " refused=" + refused
        + " applied=" + applied + " deduplicated=" + deduplicated + " rejected=" + rejected
        + " unreported=" + unreported + (clean ? "" : " (drain timed out)");
  }
}
