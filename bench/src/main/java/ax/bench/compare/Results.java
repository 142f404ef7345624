package ax.bench.compare;

import ax.bench.Bench;
import ax.bench.DbCost;
import ax.bench.peers.Outcome;
import ax.bench.peers.RecurringOutcome;
import ax.bench.peers.RecurringPlan;
import ax.bench.peers.Schedule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Everything one comparison run measured, filled by {@link Compare}, read by the report and the charts. */
public final class Results {
  /**
   * One phase of one system: what was scheduled, how ingest went, what executed, the scheduler process's CPU
   * seconds and what PostgreSQL paid ({@code db}), both from the start of ingest to the end of the grace period.
   */
  public record Phase(String system, String workload, String phase, Schedule schedule, Contender.Ingested ingested,
                      Outcome outcome, double cpuSeconds, DbCost.Figures db) {
    /** Last execution − the common trigger time (bursts). */
    public long drainMs() {
      return outcome.lastArrivalMs() - schedule.firstDueMs();
    }
  }

  public final Map<String, Map<String, String>> settings = new LinkedHashMap<>();
  /**
   * One system's recurring phase: the plan, how creating it went, what executed, the scheduler process's CPU
   * seconds from creation to the end of the drain, and the load average at its start and end.
   */
  public record Recurring(String system, RecurringPlan plan, Contender.Ingested created, RecurringOutcome outcome,
                          double cpuSeconds, String loadStart, String loadEnd) {
    /** CPU µs per occurrence received (NaN when none ran or the process is gone). */
    public double cpuPerOccurrenceUs() {
      return outcome.received() == 0 ? Double.NaN : cpuSeconds * 1e6 / outcome.received();
    }
  }

  public final Map<String, Recurring> recurring = new LinkedHashMap<>();
  public final Map<String, Contender.Ingested> ingest = new LinkedHashMap<>();
  /** What PostgreSQL paid for the ingest workload, per task stored. */
  public final Map<String, DbCost.Figures> ingestDb = new LinkedHashMap<>();
  public final Map<String, Phase> burst = new LinkedHashMap<>();
  public final Map<String, Phase> spread = new LinkedHashMap<>();
  /** system → stored backlog → the spread measured over it. */
  public final Map<String, TreeMap<Long, Phase>> flatness = new LinkedHashMap<>();
  /** system → stored backlog → ms the SQL insert took. */
  public final Map<String, TreeMap<Long, Long>> storeMs = new LinkedHashMap<>();
  /** Every phase, warm-ups included, for the correctness table. */
  public final List<Phase> phases = new ArrayList<>();
  public final Map<Double, Bench.SubmitFigures> submit = new TreeMap<>();
  public Bench.MemoryFigures memory;
  public Pgbench.Figures pgbench;
  public final List<String> notes = new ArrayList<>();
  public final List<String> failures = new ArrayList<>();

  void add(Recurring p) {
    recurring.put(p.system(), p);
    RecurringOutcome o = p.outcome();
    if (!o.correct()) {
      failures.add(p.system() + " recurring: " + o.missed() + " missed, " + o.doubled() + " doubled, " + o.early()
          + " early" + (o.early() > 0 ? " (earliest by " + o.maxEarlyMs() + " ms)" : "") + ", " + o.offGrid()
          + " off grid of " + o.expected() + " occurrences");
    }
    if (p.created().rejected() > 0) {
      failures.add(p.system() + " recurring: " + p.created().rejected() + " schedules rejected, e.g. "
          + p.created().errorSample());
    }
  }

  void add(Phase p) {
    phases.add(p);
    Outcome o = p.outcome();
    if (!o.correct()) {
      failures.add(p.system() + " " + p.phase() + ": " + o.missing() + " missing, " + o.duplicates()
          + " duplicates, " + o.early() + " early" + (o.early() > 0 ? " (earliest by " + o.maxEarlyMs() + " ms)" : "")
          + " of " + o.expected());
    }
    if (p.ingested().rejected() > 0) {
      failures.add(p.system() + " " + p.phase() + ": " + p.ingested().rejected() + " tasks rejected at ingest, e.g. "
          + p.ingested().errorSample());
    }
  }
}
