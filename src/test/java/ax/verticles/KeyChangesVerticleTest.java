package ax.verticles;

import ax.api.auth.ApiKeyCache;
import ax.store.AdminStore;
import ax.store.ApiKeyStore;
import ax.store.KeyChangeListener;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * KeyChangesVerticle in a real Vert.x against a real PostgreSQL: a cached key changed in the database
 * (as the CLI does, with no event-bus message) or announced on the event bus (as the admin API does) is
 * read again at once instead of after the cache's 30 s.
 */
@ExtendWith(VertxExtension.class)
class KeyChangesVerticleTest {
  private static final AdminStore.Actor CLI = new AdminStore.Actor("cli:test", null);

  private VerticleDatabase db;
  private AdminStore admin;
  private ApiKeyCache cache;

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    db = VerticleDatabase.create(vertx);
    admin = db.tenantWithKey("t1", "ak_watched", "watched-secret-0123456789");
    cache = new ApiKeyCache(new ApiKeyStore(db.pool, null));
    vertx.deployVerticle(new KeyChangesVerticle(cache, new KeyChangeListener.Connector(db.options)))
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void aKeyDisabledInTheDatabaseIsRefusedFromTheCacheWithinASecond(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    cache.find("ak_watched").compose(cached -> {
      ctx.verify(() -> assertTrue(cached.orElseThrow().acceptsRequests()));
      return admin.disable("ak_watched", CLI); // no event-bus message: PostgreSQL's announcement alone
    }).onComplete(ctx.succeeding(v -> pollUntilRefused(vertx, ctx, System.nanoTime())));
    assertTrue(ctx.awaitCompletion(5, TimeUnit.SECONDS));
    if (ctx.failed()) {
      throw new AssertionError(ctx.causeOfFailure());
    }
  }

  @Test
  void anEventBusAnnouncementAloneEvictsTheKey(Vertx vertx, VertxTestContext ctx) throws Exception {
    cache.find("ak_watched")
        // changed behind the cache's back with no announcement at all (a raw UPDATE) ...
        .compose(cached -> db.pool.query("UPDATE api_keys SET disabled = true WHERE access_key = 'ak_watched'").execute())
        .compose(done -> cache.find("ak_watched"))
        .onComplete(ctx.succeeding(stale -> {
          ctx.verify(() -> assertTrue(stale.orElseThrow().acceptsRequests(), "the cache still holds the old state"));
          // ... then announced as the admin API does
          vertx.eventBus().publish(ax.bus.Addresses.KEY_CHANGED, "ak_watched");
          vertx.setTimer(100, t -> cache.find("ak_watched").onComplete(ctx.succeeding(fresh -> ctx.verify(() -> {
            assertFalse(fresh.orElseThrow().acceptsRequests());
            ctx.completeNow();
          }))));
        }));
    assertTrue(ctx.awaitCompletion(5, TimeUnit.SECONDS));
    if (ctx.failed()) {
      throw new AssertionError(ctx.causeOfFailure());
    }
  }

  private void pollUntilRefused(Vertx vertx, VertxTestContext ctx, long startNanos) {
    cache.find("ak_watched").onComplete(ctx.succeeding(k -> {
      long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
      if (!k.orElseThrow().acceptsRequests()) {
        ctx.completeNow();
      } else if (elapsedMs > 1_000) {
        ctx.failNow(new AssertionError("the cache still accepted the disabled key after " + elapsedMs + " ms"));
      } else {
        vertx.setTimer(20, t -> pollUntilRefused(vertx, ctx, startNanos));
      }
    }));
  }
}
