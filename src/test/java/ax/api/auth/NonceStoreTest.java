package ax.api.auth;

import ax.testing.TestRedis;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10, finding 8: a replay was accepted after the nonce store restarted empty (Redis restarted;
 * the node restarted). Both stores now refuse a request signed before their memory began, so a wipe
 * cannot reopen the signature window. The Redis store runs against the real Redis.
 */
class NonceStoreTest {
  private static final long TTL = 600_000;
  private Vertx vertx;

  @AfterEach
  void close() {
    if (vertx != null) {
      vertx.close().await();
    }
  }

  @Test
  void inProcessAReplayIsRefusedAndSoIsEveryRequestSignedBeforeARestart() {
    long start = 1_764_460_800_000L;
    InMemoryNonceStore store = new InMemoryNonceStore(start);
    assertTrue(store.firstUse("ak", "nonce-0001", start + 1_000, TTL).await());
    assertFalse(store.firstUse("ak", "nonce-0001", start + 1_000, TTL).await(), "a replay");
    assertTrue(store.firstUse("ak2", "nonce-0001", start + 1_000, TTL).await(), "another key's nonce");

    InMemoryNonceStore restarted = new InMemoryNonceStore(start + 2_800);
    assertFalse(restarted.firstUse("ak", "nonce-0001", start + 1_000, TTL).await(), "a replay across the restart");
    assertFalse(restarted.firstUse("ak", "nonce-fresh", start + 2_799, TTL).await(), "signed before the restart");
    assertTrue(restarted.firstUse("ak", "nonce-fresh", start + 2_800, TTL).await(), "signed since");
  }

  @Test
  void inRedisAReplayIsRefusedAndAWipedRedisDoesNotReopenTheWindow() {
    TestRedis redis = TestRedis.require();
    vertx = Vertx.vertx();
    RedisAPI api = RedisAPI.api(Redis.createClient(vertx, new RedisOptions().setConnectionString(redis.url())));
    AtomicLong now = new AtomicLong(1_764_460_800_000L);
    RedisNonceStore node1 = new RedisNonceStore(api, redis.keyPrefix(), now::get);
    RedisNonceStore node2 = new RedisNonceStore(api, redis.keyPrefix(), now::get);
    long signedAt = now.get() - 1_000; // a client clock a second behind: fine while the memory is older

    assertTrue(node1.firstUse("ak", "nonce-0001", now.get(), TTL).await(), "first use starts the memory");
    now.addAndGet(5_000);
    assertFalse(node2.firstUse("ak", "nonce-0001", now.get() - 5_000, TTL).await(), "a replay on another node");
    assertTrue(node2.firstUse("ak", "nonce-0002", now.get(), TTL).await());

    // Redis restarts empty: every key gone, its script cache too
    api.del(List.of(redis.keyPrefix() + "nonce:since", redis.keyPrefix() + "nonce:ak:nonce-0001",
        redis.keyPrefix() + "nonce:ak:nonce-0002")).await();
    api.script(List.of("FLUSH")).await();
    now.addAndGet(6_000);
    assertFalse(node1.firstUse("ak", "nonce-0001", now.get() - 11_000, TTL).await(),
        "the replay 11 s after first use that created a second task");
    assertFalse(node2.firstUse("ak", "nonce-0003", signedAt, TTL).await(), "anything signed before the wipe");
    assertTrue(node2.firstUse("ak", "nonce-0004", now.get(), TTL).await(), "a request signed now");
    api.del(List.of(redis.keyPrefix() + "nonce:since", redis.keyPrefix() + "nonce:ak:nonce-0004")).await();
  }
}
