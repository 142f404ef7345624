package ax.protocol;

import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Reads the claims of an executor token (an HS256 JWT, subject = executor id) <em>without</em> checking
 * its signature: an executor only needs to learn its own id from the token it was given. The scheduler
 * verifies tokens with the secret; never trust a token because this class could read it.
 */
public final class TokenClaims {
  private TokenClaims() {
  }

  /** The {@code sub} claim. */
  public static String unverifiedSubject(String token) {
    String[] parts = token == null ? new String[0] : token.split("\\.");
    if (parts.length != 3) {
      throw new ProtocolException("not a JWT (expected three dot-separated parts)");
    }
    try {
      JsonObject payload = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
      if (!(payload.getValue("sub") instanceof String sub)) {
        throw new ProtocolException("token has no 'sub' claim");
      }
      return sub;
    } catch (ProtocolException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ProtocolException("cannot read the token payload: " + e.getMessage());
    }
  }
}
