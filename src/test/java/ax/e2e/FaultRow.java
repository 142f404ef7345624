package ax.e2e;

import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a fault test measured, for {@code faults/run.sh}'s report: one JSON line per call, appended to the
 * file named by the system property {@code ax.faults.out} (nothing at all when it is unset, so the tests
 * behave the same under {@code mvn verify}).
 *
 * <p>{@code row} is a row id of the fault matrix ({@code faults/rows.tsv} maps ids to rows). The figures
 * are what the test observed — never constants: names the report knows are {@code lost}, {@code run_twice},
 * {@code at_least_once_reruns} (a re-run after a crash, counted apart from {@code run_twice}), and the
 * "let in" figures ({@code forgeries_accepted}, {@code cross_tenant_reads}, {@code unauthorised_delivered},
 * {@code canary_hits}); any other name is shown as measured. Call it before the test's assertions, so a
 * failing run still leaves its figures.
 */
final class FaultRow {
  private FaultRow() {
  }

  static synchronized void record(String row, Map<String, ?> figures, String happened) {
    String out = System.getProperty("ax.faults.out");
    if (out == null || out.isBlank()) {
      return;
    }
    JsonObject line = new JsonObject().put("row", row).put("test", caller()).put("at", Instant.now().toString())
        .put("figures", new JsonObject(new LinkedHashMap<>(figures))).put("happened", happened);
    try {
      Path path = Path.of(out);
      if (path.getParent() != null) {
        Files.createDirectories(path.getParent());
      }
      Files.writeString(path, line.encode() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the fault record to " + out, e);
    }
  }

  /** The test class and method that called {@link #record}, e.g. {@code ClusterFailoverIT#theLeaderKilled…}. */
  private static String caller() {
    return StackWalker.getInstance().walk(frames -> frames
        .filter(f -> !f.getClassName().equals(FaultRow.class.getName()) && f.getClassName().startsWith("ax.e2e."))
        .reduce((inner, outer) -> outer) // the outermost: the test method, not a helper it called
        .map(f -> {
          String cls = f.getClassName().substring("ax.e2e.".length());
          int nested = cls.indexOf('$');
          return (nested < 0 ? cls : cls.substring(0, nested)) + "#" + f.getMethodName();
        })
        .orElse("?"));
  }

  /** The p-th percentile (0..100) of the values, or -1 when there are none. */
  static long percentile(java.util.Collection<Long> values, double p) {
    if (values.isEmpty()) {
      return -1;
    }
    long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
