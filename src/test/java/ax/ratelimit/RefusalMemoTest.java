package ax.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.ratelimit.TokenBucket.Decision;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The memo in front of a real {@link TokenBucket} driven by the same hand-moved clock: it must admit
 * exactly what the bucket alone admits, while asking the bucket far less often.
 */
class RefusalMemoTest {

  private static final long MS = 1_000_000L;
  private static final RateLimitSpec TWO_PER_SECOND = new RateLimitSpec(2, 2);

  /** A shared bucket per key as Redis keeps it, answering at the clock's time and counting questions. */
  private static final class CountedBuckets implements RateLimiter {
    final AtomicLong clock;
    final Map<String, TokenBucket> buckets = new HashMap<>();
    int questions;

    CountedBuckets(AtomicLong clock) {
      this.clock = clock;
    }

    @Override
    public Future<Decision> tryAcquire(String accessKey, RateLimitSpec spec) {
      questions++;
      TokenBucket bucket = buckets.computeIfAbsent(accessKey,
          k -> new TokenBucket(spec.ratePerSecond(), spec.burst(), clock.get()));
      return Future.succeededFuture(bucket.tryTake(clock.get()));
    }
  }

  private static Decision decide(RateLimiter limiter, String key, RateLimitSpec spec) {
    return limiter.tryAcquire(key, spec).result();
  }

  @Test
  void aRefusedKeyIsRefusedFromMemoryUntilItsNextTokenIsDue() {
    AtomicLong clock = new AtomicLong(1_000 * MS);
    CountedBuckets buckets = new CountedBuckets(clock);
    RefusalMemo memo = new RefusalMemo(buckets, clock::get);

    assertTrue(decide(memo, "k", TWO_PER_SECOND).allowed());
    assertTrue(decide(memo, "k", TWO_PER_SECOND).allowed());
    Decision refused = decide(memo, "k", TWO_PER_SECOND);
    assertFalse(refused.allowed());
    assertEquals(500, refused.retryAfterMillis());
    assertEquals(3, buckets.questions);

    clock.addAndGet(200 * MS);
    Decision remembered = decide(memo, "k", TWO_PER_SECOND);
    assertFalse(remembered.allowed());
    assertEquals(300, remembered.retryAfterMillis(), "the wait counts down from the bucket's answer");
    clock.addAndGet(298 * MS);
    assertFalse(decide(memo, "k", TWO_PER_SECOND).allowed());
    assertEquals(3, buckets.questions, "nothing asked while the refusal stands");

    clock.addAndGet(2 * MS); // the token is due: the bucket is asked again and admits
    assertTrue(decide(memo, "k", TWO_PER_SECOND).allowed());
    assertEquals(4, buckets.questions);
  }

  @Test
  void anotherKeyAndAChangedLimitAreAskedAboutAtOnce() {
    AtomicLong clock = new AtomicLong(1_000 * MS);
    CountedBuckets buckets = new CountedBuckets(clock);
    RefusalMemo memo = new RefusalMemo(buckets, clock::get);
    RateLimitSpec one = new RateLimitSpec(1, 1);
    decide(memo, "k", one);
    assertFalse(decide(memo, "k", one).allowed());
    int asked = buckets.questions;

    assertTrue(decide(memo, "other", one).allowed(), "another key has its own bucket");
    decide(memo, "k", new RateLimitSpec(100, 100));
    assertEquals(asked + 2, buckets.questions, "a changed limit is not answered from the old refusal");
  }

  @Test
  void aFailedBucketIsPassedOnAndNotRemembered() {
    AtomicLong clock = new AtomicLong(0);
    IllegalStateException down = new IllegalStateException("redis down");
    List<String> asked = new ArrayList<>();
    RefusalMemo memo = new RefusalMemo((key, spec) -> {
      asked.add(key);
      return Future.failedFuture(down);
    }, clock::get);

    assertSame(down, memo.tryAcquire("k", TWO_PER_SECOND).cause());
    assertSame(down, memo.tryAcquire("k", TWO_PER_SECOND).cause());
    assertEquals(2, asked.size());
  }

  /**
   * Whatever the request times, limits and rounding, the memo admits exactly the requests the bucket
   * alone admits: a refused take leaves the bucket as it was, so skipping it changes nothing.
   */
  @Property(tries = 300)
  void admitsExactlyWhatTheBucketAloneAdmits(
      @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 40_000) Integer> gapsMicros,
      @ForAll @IntRange(min = 1, max = 50) int rate, @ForAll @IntRange(min = 1, max = 5) int burst) {
    RateLimitSpec spec = new RateLimitSpec(rate, burst);
    AtomicLong clock = new AtomicLong(5_000 * MS);
    CountedBuckets alone = new CountedBuckets(clock);
    CountedBuckets behindMemo = new CountedBuckets(clock);
    RefusalMemo memo = new RefusalMemo(behindMemo, clock::get);
    for (int gap : gapsMicros) {
      clock.addAndGet(gap * 1_000L);
      assertEquals(decide(alone, "k", spec).allowed(), decide(memo, "k", spec).allowed(),
          "at " + clock.get() + " ns, rate " + rate + " burst " + burst);
    }
    assertTrue(behindMemo.questions <= alone.questions);
  }
}
