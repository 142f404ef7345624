package ax.alert;

import ax.alert.Observation.Sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The conditions of {@link AlertRule}, judged against the leader's {@link FigureWindow} (rates and
 * counts reported by every node), against PostgreSQL's lease row (no leader) and against the
 * dependency-skip events (alert_events). Pure: figures in, {@link Observation}s out.
 */
public final class AlertRules {
  private AlertRules() {
  }

  /** The rules the leader judges from the nodes' figures. */
  public static List<Observation> fromFigures(FigureWindow w, long nowMs, AlertSettings s) {
    List<Observation> out = new ArrayList<>();
    out.addAll(delay(w, nowMs, s));
    out.add(failureRate(w, nowMs, s));
    out.add(failedTwice(w, nowMs, s));
    out.add(executorsOffline(w, nowMs, s));
    out.add(clockOffset(w, nowMs, s));
    out.add(webhookBacklog(w, nowMs, s));
    return out;
  }

  private static boolean covered(FigureWindow w, long nowMs, long lookbackMs) {
    return w.coveredMs(nowMs) >= lookbackMs;
  }

  static List<Observation> delay(FigureWindow w, long nowMs, AlertSettings s) {
    long lookback = AlertRule.SCHEDULE_DELAY_HIGH.lookbackMs(s);
    boolean complete = covered(w, nowMs, lookback);
    double p99 = w.sum(nowMs, lookback).delayQuantileMs(0.99);
    List<Observation> out = new ArrayList<>();
    for (AlertRule r : List.of(AlertRule.SCHEDULE_DELAY_HIGH, AlertRule.SCHEDULE_DELAY_CRITICAL)) {
      long limit = r == AlertRule.SCHEDULE_DELAY_HIGH ? AlertRule.DELAY_HIGH_MS : AlertRule.DELAY_CRITICAL_MS;
      out.add(p99 > limit
          ? Observation.one(r, new Sample(p99 / 1000.0, Map.of(), String.format(Locale.ROOT,
              "Tasks are handed over late: p99 schedule delay %s (> %s for %s)", seconds(p99), seconds(limit),
              duration(r.forMs(s)))))
          : Observation.none(r, complete));
    }
    return out;
  }

  static Observation failureRate(FigureWindow w, long nowMs, AlertSettings s) {
    AlertRule r = AlertRule.EXECUTE_FAILURE_RATE_HIGH;
    long lookback = r.lookbackMs(s);
    NodeFigures sum = w.sum(nowMs, lookback);
    if (sum.attempts() == 0) {
      return Observation.none(r, covered(w, nowMs, lookback));
    }
    double ratio = (double) (sum.failure() + sum.timeout()) / sum.attempts();
    if (ratio <= AlertRule.FAILURE_RATIO) {
      return Observation.none(r, true);
    }
    return Observation.one(r, new Sample(ratio, Map.of(), String.format(Locale.ROOT,
        "%.0f %% of attempts fail or time out (%d of %d over %s; > 10 %%)", ratio * 100,
        sum.failure() + sum.timeout(), sum.attempts(), duration(lookback))));
  }

  static Observation failedTwice(FigureWindow w, long nowMs, AlertSettings s) {
    AlertRule r = AlertRule.TASK_FAILED_TWICE;
    long lookback = r.lookbackMs(s);
    Map<String, Sample> holding = new HashMap<>();
    w.sum(nowMs, lookback).failedTwice().forEach((target, n) -> {
      if (n > 0) {
        holding.put(target, new Sample(n, Map.of("target", target), String.format(Locale.ROOT,
            "A task failed twice in a row (%s target): %d such attempts in the last %s", target, n,
            duration(lookback))));
      }
    });
    return new Observation(r, holding, covered(w, nowMs, lookback));
  }

  static Observation executorsOffline(FigureWindow w, long nowMs, AlertSettings s) {
    AlertRule r = AlertRule.EXECUTOR_OFFLINE;
    long lookback = r.lookbackMs(s);
    long n = w.sum(nowMs, lookback).executorsOffline();
    return n > 0
        ? Observation.one(r, new Sample(n, Map.of(), String.format(Locale.ROOT,
            "An executor went OFFLINE (missed 4 heartbeats): %d in the last %s", n, duration(lookback))))
        : Observation.none(r, covered(w, nowMs, lookback));
  }

  static Observation clockOffset(FigureWindow w, long nowMs, AlertSettings s) {
    AlertRule r = AlertRule.CLOCK_OFFSET;
    Map<String, Sample> holding = new HashMap<>();
    w.clockOffsets(nowMs, s.freshMs()).forEach((node, ms) -> {
      if (Math.abs(ms) > AlertRule.CLOCK_OFFSET_MS) {
        holding.put(node, new Sample(ms / 1000.0, Map.of("node", node), String.format(Locale.ROOT,
            "%s: wall clock %.0f ms off the database clock (> 50 ms)", node, ms)));
      }
    });
    return new Observation(r, holding, covered(w, nowMs, s.freshMs()));
  }

  static Observation webhookBacklog(FigureWindow w, long nowMs, AlertSettings s) {
    AlertRule r = AlertRule.WEBHOOK_BACKLOG_GROWING;
    long lookback = r.lookbackMs(s);
    long now = w.sampleBacklog(nowMs, s.freshMs());
    long growth = w.backlogGrowth(nowMs, lookback);
    return now > 0 && growth > 0
        ? Observation.one(r, new Sample(now, Map.of(), String.format(Locale.ROOT,
            "Webhook backlog growing: %d notifications waiting (+%d in %s)", now, growth, duration(lookback))))
        : Observation.none(r, covered(w, nowMs, lookback));
  }

  /**
   * No node holds a live leader lease ({@code leaseLive} false), judged by any node from PostgreSQL's
   * lease row: the one rule a leader cannot evaluate.
   */
  public static Observation noLeader(boolean leaseLive, long ttlMs) {
    AlertRule r = AlertRule.NO_LEADER;
    return leaseLive ? Observation.none(r, true)
        : Observation.one(r, new Sample(0, Map.of(), "No ax node has held the leader lease for longer than the lease TTL ("
            + duration(ttlMs) + "): no task is being claimed or handed over"));
  }

  /** Tasks of one tenant SKIPPED because a dependency did not succeed, in the rule's look-back (alert_events). */
  public record Skips(String tenant, long count, List<Long> someTaskIds, String firstDetail) {
  }

  public static Observation skipped(List<Skips> perTenant, AlertSettings s) {
    AlertRule r = AlertRule.TASK_SKIPPED_BY_DEPENDENCY;
    Map<String, Sample> holding = new HashMap<>();
    for (Skips k : perTenant) {
      if (k.count() > 0) {
        holding.put(k.tenant(), new Sample(k.count(), Map.of("tenant", k.tenant()), String.format(Locale.ROOT,
            "%d task(s) of tenant %s SKIPPED by a dependency in the last %s, e.g. %s (%s)", k.count(), k.tenant(),
            duration(r.lookbackMs(s)), k.someTaskIds(), k.firstDetail())));
      }
    }
    return new Observation(r, holding, true); // read from PostgreSQL: nothing missed
  }

  static String seconds(double ms) {
    return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  static String duration(long ms) {
    if (ms % 60_000 == 0 && ms > 0) {
      return (ms / 60_000) + " min";
    }
    return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
  }
}
