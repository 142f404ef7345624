package ax.bench;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Request signing exactly as API.md "Signing" describes it, written independently of ax's own code so
 * the benchmark also checks the contract:
 * <pre>
 * string_to_sign = METHOD \n PATH \n CANONICAL_QUERY \n TIMESTAMP \n NONCE \n hex(SHA-256(body))
 * X-Ax-Signature = lowercase hex HMAC-SHA256(secret, string_to_sign)
 * </pre>
 * {@link #selfTest()} checks both test vectors of API.md; {@link Bench} runs it before anything else.
 */
public final class Signer {
  private static final HexFormat HEX = HexFormat.of(); // lower case
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] EMPTY = new byte[0];

  private final String accessKey;
  private final SecretKeySpec key;
  private final ThreadLocal<Mac> mac;

  public Signer(String accessKey, String secret) {
    this.accessKey = accessKey;
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.mac = ThreadLocal.withInitial(() -> {
      try {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(key);
        return m;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  public String accessKey() {
    return accessKey;
  }

  /** The four headers of one request, in the order API.md lists them. */
  public record Signed(String key, String timestamp, String nonce, String signature) {}

  /** Signs a request now with a fresh nonce. {@code path} without the query; {@code body} may be null. */
  public Signed sign(String method, String path, String canonicalQuery, byte[] body) {
    String ts = Long.toString(System.currentTimeMillis());
    String nonce = newNonce();
    return new Signed(accessKey, ts, nonce, signature(method, path, canonicalQuery, ts, nonce, body));
  }

  public String signature(String method, String path, String canonicalQuery, String timestamp,
                          String nonce, byte[] body) {
    String sts = stringToSign(method, path, canonicalQuery, timestamp, nonce, body);
    return HEX.formatHex(mac.get().doFinal(sts.getBytes(StandardCharsets.UTF_8)));
  }

  public static String stringToSign(String method, String path, String canonicalQuery, String timestamp,
                                    String nonce, byte[] body) {
    return method.toUpperCase() + "\n" + path + "\n" + (canonicalQuery == null ? "" : canonicalQuery)
        + "\n" + timestamp + "\n" + nonce + "\n" + sha256Hex(body == null ? EMPTY : body);
  }

  /** 22 chars of [A-Za-z0-9_-] from 128 random bits: unique per request for all practical purposes. */
  public static String newNonce() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  public static String sha256Hex(byte[] data) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parameters sorted by name then value, each name=value percent-encoded (RFC 3986), joined by &. */
  public static String canonicalQuery(List<Map.Entry<String, String>> params) {
    List<Map.Entry<String, String>> sorted = new ArrayList<>(params);
    sorted.sort(Map.Entry.<String, String>comparingByKey().thenComparing(Map.Entry.comparingByValue()));
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : sorted) {
      if (sb.length() > 0) {
        sb.append('&');
      }
      sb.append(percentEncode(e.getKey())).append('=').append(percentEncode(e.getValue()));
    }
    return sb.toString();
  }

  /** RFC 3986: unreserved characters stay, every other UTF-8 byte becomes %XX (upper-case hex). */
  public static String percentEncode(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        sb.append((char) c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return sb.toString();
  }

  /** Receiver side: {@code X-Ax-Signature: t=<ms>,v1=<hex HMAC-SHA256(secret, t + "." + body)>}. */
  public boolean verifyOutgoing(String header, byte[] body) {
    if (header == null) {
      return false;
    }
    String t = null;
    String v1 = null;
    for (String part : header.split(",")) {
      String p = part.trim();
      if (p.startsWith("t=")) {
        t = p.substring(2);
      } else if (p.startsWith("v1=")) {
        v1 = p.substring(3);
      }
    }
    if (t == null || v1 == null) {
      return false;
    }
    Mac m = mac.get();
    m.update((t + ".").getBytes(StandardCharsets.UTF_8));
    String expected = HEX.formatHex(m.doFinal(body));
    return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
        v1.toLowerCase().getBytes(StandardCharsets.US_ASCII));
  }

  /** API.md's two test vectors; throws if this signer disagrees with the contract. */
  public static void selfTest() {
    Signer s = new Signer("test", "s3cr3t-key-0123456789abcdef");
    byte[] body = ("{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,\"callback_url\":"
        + "\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}").getBytes(StandardCharsets.UTF_8);
    String bodyHash = sha256Hex(body);
    check("body sha256 prefix", "75e96932", bodyHash.substring(0, 8));
    check("body sha256 suffix", "8d83b9", bodyHash.substring(bodyHash.length() - 6));
    check("vector 1 (POST /openapi/v1/tasks)",
        "6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808",
        s.signature("POST", "/openapi/v1/tasks", "", "1764460800000", "n0nce-abc123", body));
    String q = canonicalQuery(List.of(Map.entry("task_type", "coupon.grant"), Map.entry("status", "DELAYED"),
        Map.entry("limit", "50")));
    check("vector 2 canonical query", "limit=50&status=DELAYED&task_type=coupon.grant", q);
    check("vector 2 (GET /openapi/v1/tasks?…)",
        "37fcf9f5fa5d1190823eabab61d8d94a2f945f191dd5b7bf6aa1c82e4feb5b50",
        s.signature("GET", "/openapi/v1/tasks", q, "1764460800000", "n0nce-xyz789", null));
  }

  private static void check(String what, String expected, String actual) {
    if (!expected.equals(actual)) {
      throw new IllegalStateException("Signer self-test failed: " + what + ": expected " + expected
          + " but computed " + actual);
    }
  }
}
