package ax.store;

import ax.leader.Fence;
import ax.task.TaskStatus;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A statement with named parameters ({@code :name}), compiled once to PostgreSQL's positional
 * {@code $n}. Binding is by name and {@link Params#tuple()} refuses a statement with a parameter left
 * unset or a name it does not have, so adding a column to a statement cannot silently shift the others
 * ({@code ::type} casts, quoted literals and comments are left alone).
 *
 * <p>Also the SQL fragments every store shares, written once: the lease fence, the "runs itself"
 * condition of shards, and status lists taken from {@link TaskStatus}.
 */
final class Sql {
  /**
   * The leader-lease fence: a statement that joins {@code lease} changes rows only while the term named
   * by {@link Params#fence} still holds the lease. {@code FOR SHARE} keeps a takeover from committing
   * between this check and the write (LeaseStoreTest). It also makes the holder's own renewal wait for the
   * fenced writes in flight (tens of ms, at most ~0.3 s under a saturating load, against a watchdog of the
   * TTL); {@code FOR KEY SHARE} with the epoch made a key column took that wait away but cost every fenced
   * statement more once the row had been renewed, so it was not kept (bench/tools/lease-renewal,
   * bench/README.md History 2026-12-07, twentieth session).
   */
  static final String LEASE = """
      lease AS (
        SELECT epoch FROM leases
         WHERE name = :lease AND holder = :holder AND epoch = :epoch AND expires_at > now()
         FOR SHARE
      )""";

  /**
   * Rows that run by themselves: every task except a sharded parent (it only gathers its shards).
   * Unqualified, so it reads the one {@code tasks} row of the statement.
   */
  static final String RUNS_ITSELF = "(shard_total = 1 OR parent_id IS NOT NULL)";

  /**
   * RUNNING (an HTTP call or an executor's task), said so that PostgreSQL reads it from the small partial
   * index {@code tasks_in_flight_deadline} (its predicate repeated word for word, and a bound on its key)
   * instead of walking the table. Sharded parents carry an 'infinity' deadline and are left out.
   */
  static final String RUNNING_IN_FLIGHT = "status IN ('DISPATCHING','RUNNING') AND status = 'RUNNING'"
      + " AND lease_deadline < 'infinity'";

  /**
   * "Due by {@code bound}" for statements that find their tasks by id: a filter on the rows the ids found,
   * said so that it cannot be an index condition. Written plainly, PostgreSQL sometimes read the range
   * {@code next_trigger_time <= now()} from {@code tasks_next_trigger_status} instead of looking the ids up
   * — every task that ever became due, finished ones included, because the statistics were taken while
   * most were still in the future. In an executor spread (auto_explain, 1 % of statements) 37 % of the
   * DISPATCHING writes and 44 % of the claims took that plan, touching 485 and 848 buffers against ~20 by
   * primary key (bench/README.md, History 2026-12-05 third session). {@code IS TRUE} leaves the primary
   * key as the only cheap way in. Unqualified column: the statement's one {@code tasks} row is {@code t}.
   */
  static String dueBy(String bound) {
    return "(t.next_trigger_time <= " + bound + ") IS TRUE";
  }

  private final String text;
  private final List<String> names;

  private Sql(String text, List<String> names) {
    this.text = text;
    this.names = names;
  }

  static Sql of(String named) {
    Map<String, Integer> index = new LinkedHashMap<>();
    StringBuilder out = new StringBuilder(named.length());
    int i = 0;
    int n = named.length();
    while (i < n) {
      char c = named.charAt(i);
      if (c == '\'' || c == '"') {
        int end = named.indexOf(c, i + 1);
        while (end > 0 && end + 1 < n && named.charAt(end + 1) == c) { // '' inside a literal
          end = named.indexOf(c, end + 2);
        }
        if (end < 0) {
          throw new IllegalArgumentException("unterminated " + c + " in SQL: " + named);
        }
        out.append(named, i, end + 1);
        i = end + 1;
      } else if (c == '-' && i + 1 < n && named.charAt(i + 1) == '-') {
        int end = named.indexOf('\n', i);
        end = end < 0 ? n : end;
        out.append(named, i, end);
        i = end;
      } else if (c == ':' && i + 1 < n && named.charAt(i + 1) == ':') {
        out.append("::");
        i += 2;
      } else if (c == ':' && i + 1 < n && isNameStart(named.charAt(i + 1))) {
        int end = i + 1;
        while (end < n && isNamePart(named.charAt(end))) {
          end++;
        }
        String name = named.substring(i + 1, end);
        int position = index.computeIfAbsent(name, k -> index.size() + 1);
        out.append('$').append(position);
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return new Sql(out.toString(), List.copyOf(index.keySet()));
  }

  private static boolean isNameStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isNamePart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  /** The statement as sent to PostgreSQL. */
  String text() {
    return text;
  }

  /** Parameter names in {@code $n} order. */
  List<String> names() {
    return names;
  }

  Params params() {
    return new Params();
  }

  /** {@code ('A','B')} for a SQL {@code IN}: literals keep partial indexes usable, the enum keeps them right. */
  static String in(TaskStatus... statuses) {
    return Arrays.stream(statuses).map(s -> "'" + s.name() + "'").collect(Collectors.joining(",", "(", ")"));
  }

  /** Values for one execution of the statement. */
  final class Params {
    private final Object[] values = new Object[names.size()];
    private final boolean[] set = new boolean[names.size()];

    Params set(String name, Object value) {
      int i = names.indexOf(name);
      if (i < 0) {
        throw new IllegalArgumentException("no parameter :" + name + " in " + text);
      }
      values[i] = value;
      set[i] = true;
      return this;
    }

    /** Binds {@code :lease}, {@code :holder} and {@code :epoch} of {@link #LEASE}. */
    Params fence(Fence f) {
      return set("lease", f.lease()).set("holder", f.holder()).set("epoch", f.epoch());
    }

    Tuple tuple() {
      List<String> missing = new ArrayList<>();
      for (int i = 0; i < set.length; i++) {
        if (!set[i]) {
          missing.add(":" + names.get(i));
        }
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("parameters " + missing + " not set for " + text);
      }
      return Tuple.wrap(values);
    }
  }
}
