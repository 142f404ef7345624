package ax.task;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * The identity the duplicate rule of API.md compares: tenant, {@code task_type} and the payload's
 * canonical JSON, hashed to 128 bits (the first half of SHA-256). PostgreSQL stores it as a uuid and
 * refuses a second task with the same value whose trigger time is less than 5 s away (V13, V17), so the rule
 * holds across nodes. 128 bits make a false match — a task refused although its payload differs —
 * about as likely as a hardware fault: ~n²/2¹²⁹ for n tasks of one tenant and type within 5 s.
 */
public final class Fingerprint {

  private Fingerprint() {
  }

  /**
   * SHA-256 of the canonical payload text ({@code "null"} when there is none), in hex: a value, so a
   * submission holding it compares by content.
   */
  public static String payloadDigest(String canonicalPayload) {
    return HexFormat.of().formatHex(sha256().digest(canonicalPayload.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The fingerprint of a task. Each part is length-prefixed, so no choice of tenant and type can make two
   * different (tenant, type) pairs hash the same bytes.
   */
  public static UUID of(String tenantId, String taskType, String payloadDigest) {
    MessageDigest md = sha256();
    part(md, tenantId.getBytes(StandardCharsets.UTF_8));
    part(md, taskType.getBytes(StandardCharsets.UTF_8));
    part(md, payloadDigest.getBytes(StandardCharsets.US_ASCII));
    ByteBuffer h = ByteBuffer.wrap(md.digest());
    return new UUID(h.getLong(), h.getLong());
  }

  private static void part(MessageDigest md, byte[] bytes) {
    md.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
    md.update(bytes);
  }

  /**
   * This thread's SHA-256, reset by each {@code digest()}: looking the algorithm up for every task was a
   * visible share of a batch's parsing (two digests per task).
   */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  });

  private static MessageDigest sha256() {
    MessageDigest md = SHA256.get();
    md.reset(); // a digest an exception interrupted must not leak into the next one
    return md;
  }
}
