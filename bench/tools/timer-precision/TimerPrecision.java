import io.vertx.core.*;
import java.util.*;
import java.util.concurrent.*;

/**
 * How late a Vert.x timer fires after the nanosecond it was aimed at, with the native transport ax uses:
 * {@code setTimer} with the wait rounded up to whole milliseconds (how AtDbTime waited until 2026-12-05)
 * against {@code timer(wait, NANOSECONDS)}. 400 timers each, aimed 2–5 ms ahead at no particular
 * millisecond boundary, two rounds of each.
 *
 * <p>Run from the project root after a build: {@code java -cp target/ax.jar bench/tools/timer-precision/TimerPrecision.java}
 */
public class TimerPrecision {
  public static void main(String[] a) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    System.out.println("native transport: " + vertx.isNativeTransportEnabled());
    for (String mode : new String[] {"ms", "ns", "ms", "ns"}) {
      long[] late = new long[400];
      CountDownLatch done = new CountDownLatch(1);
      vertx.runOnContext(v -> step(vertx, mode, late, 0, done));
      done.await();
      Arrays.sort(late);
      System.out.printf("%s: late p50 %d us, p90 %d us, p99 %d us, max %d us%n", mode, late[200] / 1000,
          late[360] / 1000, late[396] / 1000, late[399] / 1000);
    }
    vertx.close();
  }

  // aim at a random instant 2-5 ms ahead, not on a millisecond boundary of nanoTime
  static void step(Vertx vertx, String mode, long[] late, int i, CountDownLatch done) {
    if (i == late.length) { done.countDown(); return; }
    long aim = System.nanoTime() + 2_000_000 + ThreadLocalRandom.current().nextLong(3_000_000);
    long wait = aim - System.nanoTime();
    Handler<Long> fired = x -> {
      long now = System.nanoTime();
      late[i] = now - aim;
      step(vertx, mode, late, i + 1, done);
    };
    if (mode.equals("ms")) {
      vertx.setTimer((wait + 999_999) / 1_000_000, fired);
    } else {
      vertx.timer(wait, TimeUnit.NANOSECONDS).onSuccess(v -> fired.handle(0L));
    }
  }
}
