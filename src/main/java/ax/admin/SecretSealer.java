package ax.admin;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * Seals access-key secrets for storage with AES-256-GCM under the master key ({@code AX_MASTER_KEY}).
 * Hashing is not an option: verifying an HMAC signature needs the secret itself, so it must be
 * recoverable; encryption keeps a copy of the database (a dump, a replica, a backup) from being a copy
 * of every partner's credentials. The access key is the associated data, so a sealed secret moved to
 * another key's row does not open. Sealed form: {@code enc:v1:} + base64(12-byte IV ‖ ciphertext ‖ tag).
 * A value without the prefix is a secret stored in clear (before a master key was configured).
 *
 * <p>Changing the master key: the new one in AX_MASTER_KEY, the old one in AX_MASTER_KEY_PREVIOUS. Secrets
 * then open with either ({@link #open}); the nodes reseal every stored secret under the new key at start
 * ({@code ApiKeyStore.resealSecrets}), after which the previous key can be dropped. Thread-safe.
 */
public final class SecretSealer {
  public static final String PREFIX = "enc:v1:";
  public static final int KEY_BYTES = 32;
  private static final int IV_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  /** The master key before the current one, still opened while secrets are resealed; null = none. */
  private final SecretKeySpec previous;

  private SecretSealer(SecretKeySpec key, SecretKeySpec previous) {
    this.key = key;
    this.previous = previous;
  }

  /** This sealer, also opening secrets sealed under {@code previousBase64} (AX_MASTER_KEY_PREVIOUS). */
  public SecretSealer withPrevious(String previousBase64) {
    return new SecretSealer(key, fromBase64(previousBase64).key);
  }

  /**
   * @param base64 the master key: 32 random bytes in base64, e.g. {@code openssl rand -base64 32}
   * @throws IllegalArgumentException when it is not base64 of exactly 32 bytes (the message never
   *                                  repeats the value)
   */
  public static SecretSealer fromBase64(String base64) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(base64 == null ? "" : base64.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("AX_MASTER_KEY is not base64 (make one with: openssl rand -base64 32)");
    }
    if (raw.length != KEY_BYTES) {
      throw new IllegalArgumentException("AX_MASTER_KEY must decode to " + KEY_BYTES + " bytes, got " + raw.length
          + " (make one with: openssl rand -base64 32)");
    }
    try {
      return new SecretSealer(new SecretKeySpec(raw, "AES"), null);
    } finally {
      Arrays.fill(raw, (byte) 0);
    }
  }

  public static boolean isSealed(String stored) {
    return stored != null && stored.startsWith(PREFIX);
  }

  /** The secret of {@code accessKey} in sealed form; a new random IV each time. */
  public String seal(String accessKey, String secret) {
    byte[] iv = new byte[IV_BYTES];
    RANDOM.nextBytes(iv);
    try {
      Cipher c = cipher(key, Cipher.ENCRYPT_MODE, iv, accessKey);
      byte[] sealed = c.doFinal(secret.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[IV_BYTES + sealed.length];
      System.arraycopy(iv, 0, out, 0, IV_BYTES);
      System.arraycopy(sealed, 0, out, IV_BYTES, sealed.length);
      return PREFIX + Base64.getEncoder().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  /**
   * The secret in clear: opened when sealed (under the current master key, or the previous one), as
   * stored otherwise.
   *
   * @throws IllegalArgumentException when it was sealed under another master key, for another access
   *                                  key, or was altered
   */
  public String open(String accessKey, String stored) {
    if (!isSealed(stored)) {
      return stored;
    }
    byte[] all = sealedBytes(accessKey, stored);
    try {
      return openWith(key, accessKey, all);
    } catch (AEADBadTagException current) {
      if (previous != null) {
        try {
          return openWith(previous, accessKey, all);
        } catch (AEADBadTagException ignored) {
          // neither key: fall through
        }
      }
      throw new IllegalArgumentException("the secret of key " + accessKey + " does not open with AX_MASTER_KEY"
          + (previous == null ? "" : " or AX_MASTER_KEY_PREVIOUS") + " (sealed under another master key, or altered)");
    }
  }

  /** Whether {@code stored} is sealed under the current master key (so it needs no resealing). */
  public boolean sealedUnderCurrentKey(String accessKey, String stored) {
    if (!isSealed(stored)) {
      return false;
    }
    try {
      openWith(key, accessKey, sealedBytes(accessKey, stored));
      return true;
    } catch (AEADBadTagException e) {
      return false;
    }
  }

  private static byte[] sealedBytes(String accessKey, String stored) {
    byte[] all;
    try {
      all = Base64.getDecoder().decode(stored.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the sealed secret of key " + accessKey + " is not valid base64");
    }
    if (all.length <= IV_BYTES + TAG_BITS / 8) {
      throw new IllegalArgumentException("the sealed secret of key " + accessKey + " is too short");
    }
    return all;
  }

  private static String openWith(SecretKeySpec k, String accessKey, byte[] all) throws AEADBadTagException {
    try {
      Cipher c = cipher(k, Cipher.DECRYPT_MODE, Arrays.copyOf(all, IV_BYTES), accessKey);
      return new String(c.doFinal(all, IV_BYTES, all.length - IV_BYTES), StandardCharsets.UTF_8);
    } catch (AEADBadTagException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  private static Cipher cipher(SecretKeySpec k, int mode, byte[] iv, String accessKey)
      throws GeneralSecurityException {
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, k, new GCMParameterSpec(TAG_BITS, iv));
    c.updateAAD(accessKey.getBytes(StandardCharsets.UTF_8));
    return c;
  }
}
