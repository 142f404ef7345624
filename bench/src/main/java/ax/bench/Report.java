package ax.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The outcome of one scenario: a one-screen summary on stdout and a markdown section appended to
 * {@code results/<yyyy-MM-dd>/report.md} (UTC date).
 */
public final class Report {
  private final String scenario;
  private final ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
  private final Map<String, String> setup = new LinkedHashMap<>();
  private final List<String[]> results = new ArrayList<>(); // {section, name, value}
  private final List<String> failures = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<String> serverTrouble = new ArrayList<>();
  private String section = "";

  public Report(String scenario) {
    this.scenario = scenario;
  }

  public void setup(String name, Object value) {
    setup.put(name, String.valueOf(value));
  }

  /** Subsequent results are grouped under this heading (used by `smoke`, which has two phases). */
  public void section(String name) {
    section = name;
  }

  public void result(String name, Object value) {
    results.add(new String[] {section, name, String.valueOf(value)});
  }

  public void fail(String why) {
    failures.add((section.isEmpty() ? "" : section + ": ") + why);
  }

  public void note(String what) {
    notes.add((section.isEmpty() ? "" : section + ": ") + what);
  }

  public void serverTrouble(List<String> lines) {
    serverTrouble.addAll(lines);
  }

  public boolean failed() {
    return !failures.isEmpty();
  }

  /** p50/p90/p99/p99.9/max (and count) of a histogram, as result rows. */
  public void percentiles(String what, Histogram h, String unit, double... ps) {
    if (h.getTotalCount() == 0) {
      result(what, "no samples");
      return;
    }
    StringBuilder sb = new StringBuilder();
    for (double p : ps) {
      sb.append(pLabel(p)).append(' ').append(h.getValueAtPercentile(p)).append(unit).append(" · ");
    }
    sb.append("max ").append(h.getMaxValue()).append(unit);
    sb.append(" · mean ").append(String.format(Locale.ROOT, "%.1f", h.getMean())).append(unit);
    sb.append(" (n=").append(h.getTotalCount()).append(')');
    result(what, sb.toString());
  }

  private static String pLabel(double p) {
    if (p == Math.rint(p)) {
      return "p" + (long) p;
    }
    return "p" + String.valueOf(p);
  }

  public static String mb(double bytesOrMb) {
    return String.format(Locale.ROOT, "%.1f MB", bytesOrMb);
  }

  public static String fmt(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  public void print() {
    StringBuilder sb = new StringBuilder();
    String line = "=".repeat(78);
    sb.append(line).append('\n');
    sb.append("ax-bench ").append(scenario).append("  ").append(started.format(DateTimeFormatter.ISO_INSTANT))
        .append("  ").append(failed() ? "FAIL" : "PASS").append('\n');
    sb.append(line).append('\n');
    int w = 0;
    for (String k : setup.keySet()) {
      w = Math.max(w, k.length());
    }
    for (String[] r : results) {
      w = Math.max(w, r[1].length());
    }
    for (Map.Entry<String, String> e : setup.entrySet()) {
      sb.append(String.format("  %-" + w + "s  %s%n", e.getKey(), e.getValue()));
    }
    String current = null;
    for (String[] r : results) {
      if (!r[0].equals(current)) {
        current = r[0];
        sb.append("-- ").append(current.isEmpty() ? "results" : current).append(" ").append("-".repeat(40)).append('\n');
      }
      sb.append(String.format("  %-" + w + "s  %s%n", r[1], r[2]));
    }
    for (String n : notes) {
      sb.append("  note: ").append(n).append('\n');
    }
    for (String f : failures) {
      sb.append("  FAIL: ").append(f).append('\n');
    }
    if (!serverTrouble.isEmpty()) {
      sb.append("  server log warnings/errors (first ").append(serverTrouble.size()).append("):\n");
      for (String s : serverTrouble.subList(0, Math.min(8, serverTrouble.size()))) {
        sb.append("    ").append(s.length() > 160 ? s.substring(0, 160) + "…" : s).append('\n');
      }
    }
    sb.append(line).append('\n');
    System.out.print(sb);
  }

  /** Appends this run to results/<date>/report.md and returns the file. */
  public Path append(Path resultsDir) throws IOException {
    Path dir = resultsDir.resolve(started.format(DateTimeFormatter.ISO_LOCAL_DATE));
    Files.createDirectories(dir);
    Path file = dir.resolve("report.md");
    StringBuilder md = new StringBuilder();
    if (!Files.exists(file)) {
      md.append("# ax benchmark results — ").append(started.format(DateTimeFormatter.ISO_LOCAL_DATE))
          .append(" (UTC)\n\nOne section per run, appended by `bench/target/ax-bench.jar`. See bench/README.md for how to read them.\n");
    }
    md.append("\n## ").append(scenario).append(" — ")
        .append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'")))
        .append(" — **").append(failed() ? "FAIL" : "PASS").append("**\n\n");
    md.append("| setup | |\n|---|---|\n");
    for (Map.Entry<String, String> e : setup.entrySet()) {
      md.append("| ").append(e.getKey()).append(" | ").append(cell(e.getValue())).append(" |\n");
    }
    String current = null;
    for (String[] r : results) {
      if (!r[0].equals(current)) {
        current = r[0];
        md.append("\n| ").append(current.isEmpty() ? "result" : current).append(" | |\n|---|---|\n");
      }
      md.append("| ").append(r[1]).append(" | ").append(cell(r[2])).append(" |\n");
    }
    if (!notes.isEmpty()) {
      md.append('\n');
      for (String n : notes) {
        md.append("- note: ").append(n).append('\n');
      }
    }
    if (!failures.isEmpty()) {
      md.append('\n');
      for (String f : failures) {
        md.append("- **FAIL**: ").append(f).append('\n');
      }
    }
    if (!serverTrouble.isEmpty()) {
      md.append("\n<details><summary>server log warnings/errors (first ").append(serverTrouble.size())
          .append(")</summary>\n\n```\n");
      for (String s : serverTrouble) {
        md.append(s.length() > 300 ? s.substring(0, 300) + "…" : s).append('\n');
      }
      md.append("```\n</details>\n");
    }
    Files.writeString(file, md, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return file;
  }

  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", "<br>");
  }
}
