package ax.bench.compare;

import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;

/**
 * A contender that runs every workload: besides one-shot tasks, recurring schedules ({@code recurring})
 * and far-future tasks stored straight into its table ({@code flatness}).
 */
public interface FullContender extends Contender {
  /** Creates the recurring schedules of {@code plan} as one phase, from {@code threads} concurrent clients. */
  Ingested scheduleRecurring(String phase, RecurringPlan plan, int threads, int chunk) throws Exception;

  /** Distinct occurrences (schedule + due time) of the recurring phase executed so far. */
  long occurrences(String phase) throws Exception;

  RecurringOutcome recurringOutcome(String phase) throws Exception;

  /** Stores {@code count} far-future tasks straight into the system's table with SQL; returns ms taken. */
  long storeFuture(long offset, long count, long startMs, long spanMs) throws Exception;
}
