package ax.bench.compare;

import ax.bench.Options;
import ax.bench.Report;
import ax.bench.peers.Outcome;
import ax.bench.peers.Schedule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The peers' part of {@code smoke}: a few hundred tasks through each peer adapter of {@code compare}, both
 * peers at once (each in its own JVM on its own database) to stay inside the smoke's minute. It proves the
 * adapters still schedule, execute and report; it fails on missing or duplicated executions. An early
 * execution is the peer's own behaviour (Quartz stops waiting 2 ms before a trigger's time), so it is a
 * note here and a violation in the compare report, where peers are judged.
 */
public final class PeerSmoke {
  private static final List<String> PEERS = List.of("db-scheduler", "quartz");

  private PeerSmoke() {}

  public static void run(Options o, Report r, Path resultsDir, int n) throws Exception {
    List<Contender> peers = new ArrayList<>();
    try {
      for (String name : PEERS) {
        peers.add(PeerContender.start(name, "smoke", o, resultsDir));
      }
      Schedule s = new Schedule(n, System.currentTimeMillis() + 5_000, 2_000);
      List<Contender.Ingested> ingested = new ArrayList<>();
      for (Contender c : peers) {
        ingested.add(c.ingest("smoke", s, 4, 100));
      }
      long deadline = s.lastDueMs() + 25_000;
      while (System.currentTimeMillis() < deadline && !allDone(peers, ingested)) {
        Thread.sleep(100);
      }
      Thread.sleep(o.longValue("grace-s", 2) * 1000);
      for (int i = 0; i < peers.size(); i++) {
        report(r, peers.get(i), ingested.get(i), s);
      }
    } finally {
      peers.forEach(Contender::close);
    }
  }

  private static boolean allDone(List<Contender> peers, List<Contender.Ingested> ingested) throws Exception {
    for (int i = 0; i < peers.size(); i++) {
      if (peers.get(i).alive() && peers.get(i).executed("smoke") < ingested.get(i).accepted()) {
        return false;
      }
    }
    return true;
  }

  private static void report(Report r, Contender c, Contender.Ingested ig, Schedule s) throws Exception {
    r.section(c.name());
    r.result("tasks", s.n() + " due uniformly over 2 s from +5 s, scheduled through the peer's API in "
        + ig.ms() + " ms");
    Outcome out = c.outcome("smoke");
    r.result("executed", out.executed() + " / " + out.expected());
    r.result("missing / duplicates / early", out.missing() + " / " + out.duplicates() + " / " + out.early());
    r.percentiles("lateness (task body − trigger time)", out.lateness(), " ms", 50, 99);
    if (ig.rejected() > 0) {
      r.fail(ig.rejected() + " tasks rejected by the peer's API, e.g. " + ig.errorSample());
    }
    if (out.missing() > 0) {
      r.fail(out.missing() + " tasks never executed");
    }
    if (out.duplicates() > 0) {
      r.fail(out.duplicates() + " duplicate executions");
    }
    if (out.early() > 0) {
      r.note(out.early() + " executions before their trigger time (earliest by " + out.maxEarlyMs()
          + " ms): the peer's own behaviour, counted as a violation in the compare report");
    }
  }
}
