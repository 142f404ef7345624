package ax.spring;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Tokens shaped like the scheduler's (three base64url parts, subject = executor id) but not signed by
 * it: enough for the starter, which reads the subject and never verifies. The live test mints real ones.
 */
final class UnsignedTokens {
  private UnsignedTokens() {
  }

  static String forSubject(String executorId) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(("{\"sub\":\"" + executorId + "\"}").getBytes(StandardCharsets.UTF_8)) + ".c2ln";
  }
}
