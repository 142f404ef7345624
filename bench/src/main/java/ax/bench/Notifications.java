package ax.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What arrived at {@code POST /notify}: ax's terminal-state webhooks ({@code notify_url}), kept apart from
 * the callbacks so they never count as executions. Per task: the first arrival; in all: arrivals,
 * signatures, statuses. Arrivals come from an event loop, readers poll from their own thread.
 */
public final class Notifications implements Receiver.Sink {
  private final Map<String, Long> firstArrival = new HashMap<>();
  private final Map<String, Integer> statuses = new TreeMap<>();
  private long arrivals;
  private long repeats;
  private long sigOk;
  private long sigBad;
  private long parseErrors;
  private long firstMs = Long.MAX_VALUE;
  private long lastMs = Long.MIN_VALUE;

  @Override
  public synchronized void record(long arrival, Buffer body, String sigHeader, Signer signer) {
    arrivals++;
    if (sigHeader != null && signer.verifyOutgoing(sigHeader, body.getBytes())) {
      sigOk++;
    } else {
      sigBad++;
    }
    JsonObject json;
    try {
      json = body.toJsonObject();
    } catch (RuntimeException e) {
      parseErrors++;
      return;
    }
    String id = String.valueOf(json.getValue("task_id"));
    statuses.merge(String.valueOf(json.getValue("status")), 1, Integer::sum);
    if (firstArrival.putIfAbsent(id, arrival) != null) {
      repeats++;
    }
    firstMs = Math.min(firstMs, arrival);
    lastMs = Math.max(lastMs, arrival);
  }

  @Override
  public synchronized void parseError() {
    parseErrors++;
  }

  /** Distinct tasks notified so far. */
  public synchronized int distinct() {
    return firstArrival.size();
  }

  /** Forgets everything: the next phase counts from zero. */
  public synchronized void reset() {
    firstArrival.clear();
    statuses.clear();
    arrivals = repeats = sigOk = sigBad = parseErrors = 0;
    firstMs = Long.MAX_VALUE;
    lastMs = Long.MIN_VALUE;
  }

  /** When the first and the last webhook arrived, relative to {@code refMs} (e.g. a burst's due instant). */
  public synchronized String window(long refMs, String ref) {
    return firstArrival.isEmpty() ? "none arrived"
        : "first " + (firstMs - refMs) + " ms, last " + (lastMs - refMs) + " ms after " + ref;
  }

  /** One line for the report: counts, rate between the first and last arrival, signatures, statuses. */
  public synchronized String summary() {
    double spanS = (lastMs - firstMs) / 1000.0;
    String rate = arrivals < 2 || spanS <= 0 ? "n/a" : Report.fmt(firstArrival.size() / spanS, 0) + "/s";
    return firstArrival.size() + " tasks notified (" + arrivals + " POSTs, " + repeats + " repeats) in "
        + Report.fmt(Math.max(0, spanS), 1) + " s first to last = " + rate + "; signatures ok " + sigOk + ", bad "
        + sigBad + "; statuses " + statuses + (parseErrors > 0 ? "; unparsable " + parseErrors : "");
  }
}
