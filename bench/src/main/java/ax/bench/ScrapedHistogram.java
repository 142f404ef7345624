package ax.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus histogram's growth between two scrapes of ax's {@code /metrics}, and the bucket each
 * quantile of that growth falls in. Bucket bounds are all a histogram knows, so a quantile is reported
 * as "at most" its bucket's upper bound.
 */
final class ScrapedHistogram {
  private static final Pattern BUCKET = Pattern.compile("(?m)^(\\w+)_bucket\\{([^}]*)le=\"([^\"]+)\"\\}\\s+(\\S+)$");

  /** Cumulative count per upper bound (+Inf included) of the grown part; the series picked by {@code labels}. */
  private final TreeMap<Double, Double> cumulative = new TreeMap<>();

  ScrapedHistogram(String before, String after, String metric, String labels) {
    Map<Double, Double> b = buckets(before, metric, labels);
    buckets(after, metric, labels).forEach((le, n) -> cumulative.put(le, n - b.getOrDefault(le, 0.0)));
  }

  private static Map<Double, Double> buckets(String scrape, String metric, String labels) {
    Map<Double, Double> out = new TreeMap<>();
    Matcher m = BUCKET.matcher(scrape);
    while (m.find()) {
      if (m.group(1).equals(metric) && m.group(2).contains(labels)) {
        double le = m.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(3));
        out.merge(le, Double.parseDouble(m.group(4)), Double::sum);
      }
    }
    return out;
  }

  double count() {
    return cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
  }

  /** The upper bound, in ms, of the bucket holding quantile {@code q} (0..1); NaN when nothing grew. */
  double upperBoundMs(double q) {
    double total = count();
    if (total <= 0) {
      return Double.NaN;
    }
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      if (e.getValue() >= q * total) {
        return e.getKey() * 1000;
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  /** "≤ 1 / ≤ 2.5 / ≤ 5 ms" for the given quantiles; "none" when nothing grew. */
  String bounds(double... qs) {
    if (count() <= 0) {
      return "none";
    }
    StringBuilder s = new StringBuilder();
    for (double q : qs) {
      double ms = upperBoundMs(q);
      s.append(s.length() == 0 ? "" : " / ").append(Double.isInfinite(ms) ? "> last bucket"
          : "≤ " + (ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms)));
    }
    return s.append(" ms").toString();
  }
}
