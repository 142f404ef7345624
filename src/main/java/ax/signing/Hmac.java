package ax.signing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The two digests the signing schemes are built from, in lowercase hex. Kept apart so inbound
 * ({@link RequestSigning}) and outbound ({@link OutboundSignature}) signing cannot drift in how they
 * key the MAC or encode the result.
 */
final class Hmac {

  private static final HexFormat HEX = HexFormat.of();
  /** Mac.getInstance walks the provider list; one instance per thread avoids that on every call. */
  private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
    try {
      return Mac.getInstance("HmacSHA256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
    }
  });

  /** The same for SHA-256 (the body's digest of every signed request); {@code digest} resets it for reuse. */
  private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  });

  private Hmac() {
  }

  /** Lowercase hex HMAC-SHA256 keyed by the UTF-8 bytes of {@code secret}, over the parts in order. */
  static String sha256Hex(String secret, byte[]... parts) {
    try {
      Mac mac = MAC.get();
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      for (byte[] part : parts) {
        mac.update(part);
      }
      return HEX.formatHex(mac.doFinal());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
    }
  }

  /** Lowercase hex SHA-256 of {@code data}. */
  static String digestHex(byte[] data) {
    return HEX.formatHex(SHA_256.get().digest(data));
  }
}
