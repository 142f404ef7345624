package ax.api.auth;

import ax.admin.AdminTokens;
import ax.api.Problem;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.JWTAuthHandler;

import java.util.List;

/**
 * The {@code adminJwt} security scheme of openapi.yaml: {@code Authorization: Bearer <JWT>}, HS256 with
 * AX_ADMIN_JWT_SECRET, issuer {@code ax}, audience {@code ax-admin}, a bounded {@code exp}
 * ({@link AdminTokens}). A missing, malformed, expired, wrongly signed or other-audience token — and a
 * tenant's signed request, which carries no token — is answered 401 problem+json; the token's subject
 * is left in the context for the audit record. Without a secret the admin API is off: 404, as if the
 * paths did not exist.
 *
 * <p>It implements {@link JWTAuthHandler} only because that is the handler type the OpenAPI router
 * accepts for an http bearer scheme; the scope methods are inert (admin tokens have no scopes).
 */
public final class AdminAuthHandler implements JWTAuthHandler {
  /** The context key of the token's subject, who is acting. */
  public static final String SUBJECT = "ax.admin.subject";

  private final JWTAuth verifier;

  /** @param verifier null when AX_ADMIN_JWT_SECRET is not set: the admin API is off */
  public AdminAuthHandler(JWTAuth verifier) {
    this.verifier = verifier;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (verifier == null) {
      Problem.notFound("the admin API is off on this node (AX_ADMIN_JWT_SECRET is not set)").send(ctx);
      return;
    }
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
      refuse(ctx, "missing_token", "admin requests need Authorization: Bearer <admin token> "
          + "(java -jar ax.jar admin-token); access keys are not accepted here");
      return;
    }
    AdminTokens.KIND.verify(verifier, header.substring(7).trim()).onComplete(ar -> {
      if (ar.failed()) {
        refuse(ctx, "invalid_token", "the admin token was refused: " + reason(ar.cause()));
      } else {
        ctx.put(SUBJECT, ar.result());
        ctx.next();
      }
    });
  }

  /** Why, in words that do not echo the token or the parser's internals. */
  static String reason(Throwable failure) {
    String m = String.valueOf(failure.getMessage());
    if (m.contains("expired")) {
      return "it has expired (mint a new one: java -jar ax.jar admin-token)";
    }
    if (m.contains("audience")) {
      return "it is not for audience " + AdminTokens.AUDIENCE;
    }
    if (m.contains("issuer")) {
      return "it is not issued by " + ax.signing.Hs256Tokens.ISSUER;
    }
    if (m.contains("Signature verification failed")) {
      return "its signature does not match AX_ADMIN_JWT_SECRET";
    }
    if (m.startsWith("token ")) { // Hs256Tokens' own checks: exp missing or too far, subject
      return m;
    }
    return "it is not a well-formed JWT";
  }

  private static void refuse(RoutingContext ctx, String code, String detail) {
    ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"ax-admin\", error=\"invalid_token\"");
    Problem.unauthorized(code, detail).send(ctx);
  }

  @Override
  public JWTAuthHandler scopeDelimiter(String delimiter) {
    return this;
  }

  @Override
  public JWTAuthHandler withScope(String scope) {
    return this;
  }

  @Override
  public JWTAuthHandler withScopes(List<String> scopes) {
    return this;
  }
}
