package ax.api.auth;

import ax.api.Problem;
import ax.clock.DbClock;
import ax.signing.RequestSigning;
import ax.signing.SignatureVerifier;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs before a signed request's body is read: everything the signing headers and the query can tell
 * on their own — an access key that exists, a timestamp inside the window, a well-formed nonce and
 * signature, no query parameter twice. A request that fails is answered 401 (400 for a duplicate
 * parameter) and its connection closed once the body has arrived, which is thrown away unbuffered
 * (within LingeringClose's bounds), so a client that cannot sign costs the node its headers, not a
 * buffered body. {@link HmacAuthHandler} still checks the signature itself once the body is in, and
 * these headers again with the clock of that moment (a cheap pass): a body slow to arrive may have taken
 * its timestamp out of the window, which the replay store's nonce lifetime is sized by.
 */
public final class SigningPrecheck implements SecurityPolicyHandler {
  private static final Logger LOG = Logger.getLogger(SigningPrecheck.class.getName());
  private static final String SIGNED_PREFIX = "/openapi/";

  private final ApiKeyCache keys;
  private final DbClock clock;
  private final SignatureVerifier verifier;

  public SigningPrecheck(ApiKeyCache keys, DbClock clock, long skewWindowMs) {
    this.keys = keys;
    this.clock = clock;
    this.verifier = new SignatureVerifier(skewWindowMs);
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    if (!req.path().startsWith(SIGNED_PREFIX)) {
      ctx.next();
      return;
    }
    String accessKey = req.getHeader("X-Ax-Key");
    if (accessKey == null || accessKey.isEmpty()) {
      refuse(ctx, Problem.unauthorized("unknown_key", "missing header X-Ax-Key"));
      return;
    }
    Optional<String> headers = verifier.precheck(req.getHeader("X-Ax-Timestamp"), req.getHeader("X-Ax-Nonce"),
        req.getHeader("X-Ax-Signature"), clock.nowMillis());
    if (headers.isPresent()) {
      refuse(ctx, Problem.unauthorized(headers.get(), HmacAuthHandler.describe(headers.get())));
      return;
    }
    try {
      RequestSigning.parameters(req.query());
    } catch (RequestSigning.DuplicateParameterException e) {
      refuse(ctx, Problem.validation(e.getMessage()));
      return;
    } catch (IllegalArgumentException malformed) {
      refuse(ctx, Problem.unauthorized(SignatureVerifier.SIGNATURE_MISMATCH, "the query is not valid percent-encoded UTF-8"));
      return;
    }
    req.pause(); // the body waits (unread) while the key is looked up; the body handler resumes it
    keys.find(accessKey).onComplete(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "key lookup failed", ar.cause());
        refuse(ctx, Problem.unavailable("cannot verify credentials right now; retry later"));
      } else if (ar.result().isEmpty() || !ar.result().get().acceptsRequests()) {
        refuse(ctx, Problem.unauthorized("unknown_key", "unknown access key"));
      } else {
        ctx.next();
      }
    });
  }

  /** Answers and closes: the body is never parsed, only discarded while the close lingers. */
  private static void refuse(RoutingContext ctx, Problem problem) {
    problem.sendAndClose(ctx);
  }
}
