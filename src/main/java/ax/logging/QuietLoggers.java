package ax.logging;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;

/**
 * The libraries whose INFO lines an operator does not need at every start, and the level each is held
 * at, so that a start shows which node, which ports, leader or standby, and ready. Each entry says
 * what it hides and what tells the same instead. At a level finer than INFO (AX_LOG_LEVEL=DEBUG) nothing
 * is held back: whoever debugs sees everything. Pure.
 */
public final class QuietLoggers {
  private QuietLoggers() {
  }

  /** Logger name → level, for a process logging at {@code root}. */
  public static Map<String, Level> at(Level root) {
    Map<String, Level> levels = new LinkedHashMap<>();
    if (root.intValue() < Level.INFO.intValue()) {
      return levels;
    }
    // A line per migration and a few about the schema history at every start; ax.store.Database logs
    // the outcome (schema version, migrations applied) in one line.
    levels.put("org.flywaydb", atLeast(Level.WARNING, root));
    // A banner, copyright, and a dozen notes about features ax does not use (Jet, TPC, diagnostics, the
    // security advisor) when a node joins; ax logs the join and every member change itself
    // (ax.cluster.HazelcastClusterView). Hazelcast's warnings and errors still show.
    levels.put("com.hazelcast", atLeast(Level.WARNING, root));
    // "CP Subsystem is not enabled. CP data structures will operate in UNSAFE mode!" at every start,
    // whatever the configuration (CP needs 3+ members): ax uses no CP data structure; its leader is a
    // PostgreSQL lease with an epoch fence (ax.leader), not a Hazelcast lock.
    levels.put("com.hazelcast.cp.CPSubsystem", atLeast(Level.SEVERE, root));
    // "This Gauge has been already registered (vertx.eventbus.handlers)": Vert.x's Micrometer metrics
    // register that gauge once per event-bus consumer and rely on Micrometer returning the existing one,
    // which Micrometer >= 1.13.9 warns about (vert-x3/vertx-micrometer-metrics#259,
    // micrometer-metrics/micrometer#6931). Not a fault of ax's, and nothing is lost.
    levels.put("io.micrometer.core.instrument.MeterRegistry", atLeast(Level.SEVERE, root));
    // `ax dev` only: the embedded PostgreSQL's extraction, initdb and pg_ctl output, line by line.
    levels.put("io.zonky.test.db.postgres", atLeast(Level.WARNING, root));
    return levels;
  }

  private static Level atLeast(Level quiet, Level root) {
    return quiet.intValue() >= root.intValue() ? quiet : root;
  }
}
