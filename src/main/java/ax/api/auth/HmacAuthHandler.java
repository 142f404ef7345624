package ax.api.auth;

import ax.api.ApiPrincipal;
import ax.api.Problem;
import ax.clock.DbClock;
import ax.ratelimit.RateLimitSpec;
import ax.ratelimit.RateLimiter;
import ax.signing.SignatureVerifier;
import ax.store.ApiKeyStore;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.APIKeyHandler;

import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code hmacAuth} security scheme of openapi.yaml: checks API.md's request signature, then the
 * key's token bucket, then the nonce (last, so a request refused for rate does not burn its nonce).
 * On success it leaves an {@link ApiPrincipal} in the context. Everything that fails answers
 * problem+json at once; nothing reaches validation or a handler unauthenticated.
 *
 * <p>It implements {@link APIKeyHandler} only because that is the handler type the OpenAPI router
 * accepts for an apiKey scheme; the builder-style methods are inert.
 */
public final class HmacAuthHandler implements APIKeyHandler {
  private static final Logger LOG = Logger.getLogger(HmacAuthHandler.class.getName());
  public static final long SKEW_WINDOW_MS = 300_000;

  private final ApiKeyCache keys;
  private final NonceStore nonces;
  private final RateLimiter rateLimiter;
  private final RateLimitSpec defaultLimit;
  private final DbClock clock;
  private final SignatureVerifier verifier = new SignatureVerifier(SKEW_WINDOW_MS);

  public HmacAuthHandler(ApiKeyCache keys, NonceStore nonces, RateLimiter rateLimiter, RateLimitSpec defaultLimit,
                         DbClock clock) {
    this.keys = keys;
    this.nonces = nonces;
    this.rateLimiter = rateLimiter;
    this.defaultLimit = defaultLimit;
    this.clock = clock;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    String accessKey = req.getHeader("X-Ax-Key");
    if (accessKey == null || accessKey.isEmpty()) {
      Problem.unauthorized("unknown_key", "missing header X-Ax-Key").send(ctx);
      return;
    }
    keys.find(accessKey).onComplete(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "key lookup failed", ar.cause());
        Problem.unavailable("cannot verify credentials right now; retry later").send(ctx);
        return;
      }
      Optional<ApiKeyStore.ApiKey> key = ar.result();
      if (key.isEmpty() || !key.get().acceptsRequests()) { // disabled and deleted keys are not told apart
        Problem.unauthorized("unknown_key", "unknown access key").send(ctx);
        return;
      }
      verify(ctx, key.get());
    });
  }

  private void verify(RoutingContext ctx, ApiKeyStore.ApiKey key) {
    HttpServerRequest req = ctx.request();
    Buffer body = ctx.body() == null ? null : ctx.body().buffer();
    String nonce = req.getHeader("X-Ax-Nonce");
    String timestamp = req.getHeader("X-Ax-Timestamp");
    byte[] bytes = body == null ? new byte[0] : body.getBytes();
    long now = clock.nowMillis();
    Optional<String> failure = verifier.verify(req.method().name(), req.path(), req.query(),
        timestamp, nonce, req.getHeader("X-Ax-Signature"), bytes, key.secret(), now);
    Optional<String> previous = key.previousSecretAt(now);
    if (failure.isPresent() && failure.get().equals(SignatureVerifier.SIGNATURE_MISMATCH) && previous.isPresent()) {
      // rotated with a grace period: clients still signing with the old secret are let in until it ends
      failure = verifier.verify(req.method().name(), req.path(), req.query(), timestamp, nonce,
          req.getHeader("X-Ax-Signature"), bytes, previous.get(), now);
    }
    if (failure.isPresent()) {
      Problem.unauthorized(failure.get(), describe(failure.get())).send(ctx);
      return;
    }
    RateLimitSpec limit = limitOf(key);
    rateLimiter.tryAcquire(key.accessKey(), limit)
        .compose(decision -> {
          if (!decision.allowed()) {
            long seconds = Math.max(1, (decision.retryAfterMillis() + 999) / 1000);
            ctx.response().putHeader("Retry-After", Long.toString(seconds));
            new Problem(429, "rate_limited", "Too many requests", "the key's limit is " + limit.ratePerSecond()
                + " requests/s (burst " + limit.burst() + "); retry after " + seconds + " s").send(ctx);
            return Future.succeededFuture(false);
          }
          // verify() accepted the timestamp, so it parses; the store uses it to refuse requests signed
          // before its own memory began (a restarted or wiped store must not reopen the window)
          long signedAtMs = Long.parseLong(timestamp);
          return nonces.firstUse(key.accessKey(), nonce, signedAtMs, 2 * SKEW_WINDOW_MS).map(first -> {
            if (!first) {
              Problem.unauthorized("nonce_replayed", "this nonce was already used with this key, or the "
                  + "request was signed before the replay memory began (sign it again with the current time)").send(ctx);
            }
            return first;
          });
        })
        .onComplete(ar -> {
          if (ar.failed()) {
            LOG.log(Level.WARNING, "replay check unavailable; refusing the request", ar.cause());
            Problem.unavailable("cannot check for replays right now; retry later").send(ctx);
          } else if (ar.result()) {
            ctx.put(ApiPrincipal.CONTEXT_KEY, new ApiPrincipal(key.accessKey(), key.tenantId()));
            ctx.next();
          }
        });
  }

  private RateLimitSpec limitOf(ApiKeyStore.ApiKey key) {
    if (key.rateLimit() == null) {
      return defaultLimit;
    }
    try {
      return RateLimitSpec.parse(key.rateLimit());
    } catch (IllegalArgumentException e) {
      LOG.warning("key " + key.accessKey() + " has an invalid rate_limit; using the default");
      return defaultLimit;
    }
  }

  static String describe(String code) {
    return switch (code) {
      case "timestamp_skew" -> "X-Ax-Timestamp is missing or more than 300 s from server time";
      case "signature_mismatch" -> "the signature does not match the request (or a signing header is missing "
          + "or malformed)";
      default -> code;
    };
  }

  @Override
  public APIKeyHandler header(String headerName) {
    return this;
  }

  @Override
  public APIKeyHandler parameter(String paramName) {
    return this;
  }

  @Override
  public APIKeyHandler cookie(String cookieName) {
    return this;
  }

  @Override
  public APIKeyHandler tokenExtractor(Function<String, Future<String>> tokenExtractor) {
    return this;
  }
}
