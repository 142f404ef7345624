package ax.bench.peers;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The outcome of one recurring phase ({@link OccurrenceLog}); travels from a peer JVM as one JSON line.
 * {@code p99ByMinute}: minute of the window (by due time) → lateness p99 of the occurrences due in it.
 */
public record RecurringOutcome(Histogram lateness, long expected, long received, long arrivals, long doubledOtherTask,
                               long doubledSameTask, long early, long maxEarlyMs, long offGrid, long afterWindow,
                               long unknown, long firstArrivalMs, long lastArrivalMs,
                               TreeMap<Integer, Long> p99ByMinute, List<String> samples) {
  public long missed() {
    return expected - received;
  }

  public long doubled() {
    return doubledOtherTask + doubledSameTask;
  }

  public boolean correct() {
    return missed() == 0 && doubled() == 0 && early == 0 && offGrid == 0 && unknown == 0;
  }

  public JsonObject toJson() {
    ByteBuffer buf = ByteBuffer.allocate(lateness.getNeededByteBufferCapacity());
    int len = lateness.encodeIntoCompressedByteBuffer(buf);
    JsonObject minutes = new JsonObject();
    p99ByMinute.forEach((m, v) -> minutes.put(Integer.toString(m), v));
    return new JsonObject().put("expected", expected).put("received", received).put("arrivals", arrivals)
        .put("doubledOther", doubledOtherTask).put("doubledSame", doubledSameTask).put("early", early)
        .put("maxEarly", maxEarlyMs).put("offGrid", offGrid).put("afterWindow", afterWindow).put("unknown", unknown)
        .put("first", firstArrivalMs).put("last", lastArrivalMs).put("minutes", minutes)
        .put("samples", new JsonArray(List.copyOf(samples)))
        .put("lateness", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), len)));
  }

  public static RecurringOutcome fromJson(JsonObject j) {
    try {
      Histogram h = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(j.getString("lateness"))), 0);
      TreeMap<Integer, Long> minutes = new TreeMap<>();
      j.getJsonObject("minutes").forEach(e -> minutes.put(Integer.parseInt(e.getKey()), ((Number) e.getValue()).longValue()));
      List<String> samples = j.getJsonArray("samples").stream().map(String::valueOf).toList();
      return new RecurringOutcome(h, j.getLong("expected"), j.getLong("received"), j.getLong("arrivals"),
          j.getLong("doubledOther"), j.getLong("doubledSame"), j.getLong("early"), j.getLong("maxEarly"),
          j.getLong("offGrid"), j.getLong("afterWindow"), j.getLong("unknown"), j.getLong("first"), j.getLong("last"),
          minutes, samples);
    } catch (DataFormatException e) {
      throw new IllegalStateException("corrupt lateness histogram from a peer", e);
    }
  }
}
