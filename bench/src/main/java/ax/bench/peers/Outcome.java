package ax.bench.peers;

import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What a phase produced where the work landed: lateness of each task's first execution (ms, HdrHistogram,
 * 3 significant digits) and the correctness counts. {@code early} tasks are counted, not put in the
 * histogram; {@code maxEarlyMs} is how early the earliest of them ran. Travels from a peer JVM to the bench as one JSON line.
 */
public record Outcome(Histogram lateness, long expected, long executed, long duplicates, long early,
                      long maxEarlyMs, long firstArrivalMs, long lastArrivalMs) {
  public static Histogram newHistogram() {
    return new Histogram(24L * 3_600_000, 3);
  }

  public long missing() {
    return expected - executed;
  }

  public boolean correct() {
    return missing() == 0 && duplicates == 0 && early == 0;
  }

  public JsonObject toJson() {
    ByteBuffer buf = ByteBuffer.allocate(lateness.getNeededByteBufferCapacity());
    int len = lateness.encodeIntoCompressedByteBuffer(buf);
    return new JsonObject().put("expected", expected).put("executed", executed).put("duplicates", duplicates)
        .put("early", early).put("maxEarly", maxEarlyMs).put("first", firstArrivalMs).put("last", lastArrivalMs)
        .put("lateness", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), len)));
  }

  public static Outcome fromJson(JsonObject j) {
    try {
      Histogram h = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(j.getString("lateness"))), 0);
      return new Outcome(h, j.getLong("expected"), j.getLong("executed"), j.getLong("duplicates"),
          j.getLong("early"), j.getLong("maxEarly"), j.getLong("first"), j.getLong("last"));
    } catch (DataFormatException e) {
      throw new IllegalStateException("corrupt lateness histogram from a peer", e);
    }
  }
}
