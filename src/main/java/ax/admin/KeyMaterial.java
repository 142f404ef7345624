package ax.admin;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * New access keys and secrets. An access key is a name, not a secret ({@code ak_} + 20 random
 * characters, so keys of different tenants cannot be guessed from one another); a secret is 32 random
 * bytes in URL-safe base64 (43 characters), which signing tools can paste without quoting.
 */
public final class KeyMaterial {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  private KeyMaterial() {
  }

  public static String newAccessKey() {
    StringBuilder sb = new StringBuilder("ak_");
    for (int i = 0; i < 20; i++) {
      sb.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
    }
    return sb.toString();
  }

  public static String newSecret() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
