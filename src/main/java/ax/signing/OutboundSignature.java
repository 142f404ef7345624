package ax.signing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The signature ax puts on its own outgoing calls (HTTP targets and webhooks, API.md "Outgoing
 * calls"), so receivers can tell a genuine call from a forged one:
 *
 * <pre>
 *   X-Ax-Signature: t=&lt;epoch ms&gt;,v1=&lt;hex HMAC-SHA256(secret, t + "." + body)&gt;
 * </pre>
 *
 * <p>The timestamp is inside the MAC, so a receiver that rejects old timestamps also rejects replays
 * of captured calls. The version tag lets a future scheme be sent alongside {@code v1}. The MAC runs
 * over the raw body bytes, so a receiver verifies exactly what it received, before parsing it.
 */
public final class OutboundSignature {

  /** Up to 18 digits: any epoch-millisecond value, and never a {@code long} overflow. */
  private static final Pattern TIMESTAMP = Pattern.compile("\\d{1,18}");

  private OutboundSignature() {
  }

  /** The header value for a call with this body, signed at {@code timestampMs}. */
  public static String header(String secret, long timestampMs, byte[] body) {
    String timestamp = Long.toString(timestampMs);
    return "t=" + timestamp + ",v1=" + mac(secret, timestamp, body);
  }

  /**
   * What a receiver does: true when {@code header} carries exactly one timestamp, within
   * {@code toleranceMs} of {@code nowMs}, and a {@code v1} signature that matches this body (any
   * one, when several are sent during a key rotation). Any malformed or missing part gives false.
   */
  public static boolean verify(String secret, String header, byte[] body, long nowMs, long toleranceMs) {
    if (secret == null || header == null) {
      return false;
    }
    String timestamp = null;
    List<String> signatures = new ArrayList<>();
    for (String part : header.split(",")) {
      String trimmed = part.trim();
      if (trimmed.startsWith("t=")) {
        if (timestamp != null) {
          return false;
        }
        timestamp = trimmed.substring(2);
      } else if (trimmed.startsWith("v1=")) {
        signatures.add(trimmed.substring(3).toLowerCase(Locale.ROOT));
      }
    }
    if (timestamp == null || !TIMESTAMP.matcher(timestamp).matches()
        || Math.abs(nowMs - Long.parseLong(timestamp)) > toleranceMs) {
      return false;
    }
    String expected = mac(secret, timestamp, body);
    boolean matched = false;
    for (String signature : signatures) {
      matched |= RequestSigning.constantTimeEquals(expected, signature);
    }
    return matched;
  }

  /** The MAC over the timestamp exactly as written in the header, a dot, and the body bytes. */
  private static String mac(String secret, String timestamp, byte[] body) {
    return Hmac.sha256Hex(secret, (timestamp + ".").getBytes(StandardCharsets.UTF_8),
        body == null ? new byte[0] : body);
  }
}
