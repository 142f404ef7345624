package ax.client;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * API.md's request signature, as the server checks it (its {@code ax.signing.RequestSigning}; the two
 * are held together by clients/signing-test-vectors.json, not by sharing code, so that this artifact
 * needs nothing of the server's):
 *
 * <pre>
 *   HMAC-SHA256(secret, METHOD \n PATH \n CANONICAL_QUERY \n TIMESTAMP \n NONCE \n hex(SHA-256(body)))
 * </pre>
 *
 * Pure functions of their arguments; {@link SigningInterceptor} supplies the time and the nonce.
 */
public final class AxSigner {
  private static final HexFormat HEX = HexFormat.of();
  private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

  private final String secret;

  public AxSigner(String secret) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("secret is required");
    }
    this.secret = secret;
  }

  /**
   * The lowercase hex signature of a request.
   *
   * @param path     the path exactly as sent (percent-encoded), without the query
   * @param rawQuery the query exactly as sent, without {@code ?}; null or empty for none
   * @param body     the body bytes exactly as sent; null or empty for none
   */
  public String signature(String method, String path, String rawQuery, String timestamp, String nonce, byte[] body) {
    return hmacHex(stringToSign(method, path, rawQuery, timestamp, nonce, body));
  }

  /** The six lines the signature covers. */
  public static String stringToSign(String method, String path, String rawQuery, String timestamp, String nonce,
                                    byte[] body) {
    return String.join("\n", method.toUpperCase(java.util.Locale.ROOT), path, canonicalQuery(rawQuery), timestamp,
        nonce, sha256Hex(body == null ? new byte[0] : body));
  }

  /**
   * The query's parameters decoded ({@code %XX} only: a {@code +} stays a plus), sorted by name then value
   * in UTF-8 byte order, each re-encoded with only {@code A-Za-z0-9-._~} kept, joined by {@code &}.
   */
  public static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (String pair : rawQuery.split("&")) {
      if (!pair.isEmpty()) {
        int eq = pair.indexOf('=');
        pairs.add(new String[] {decode(eq < 0 ? pair : pair.substring(0, eq)), decode(eq < 0 ? "" : pair.substring(eq + 1))});
      }
    }
    pairs.sort((a, b) -> {
      int byName = compareUtf8(a[0], b[0]);
      return byName != 0 ? byName : compareUtf8(a[1], b[1]);
    });
    return pairs.stream().map(p -> encode(p[0]) + "=" + encode(p[1])).collect(Collectors.joining("&"));
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private String hmacHex(String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HEX.formatHex(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  private static int compareUtf8(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
    int from = 0;
    for (int percent; (percent = text.indexOf('%', from)) >= 0; from = percent + 3) {
      bytes.writeBytes(text.substring(from, percent).getBytes(StandardCharsets.UTF_8));
      int high = percent + 2 < text.length() ? hexValue(text.charAt(percent + 1)) : -1;
      int low = percent + 2 < text.length() ? hexValue(text.charAt(percent + 2)) : -1;
      if (high < 0 || low < 0) {
        throw new IllegalArgumentException("malformed percent-encoding in query: " + text);
      }
      bytes.write(high << 4 | low);
    }
    bytes.writeBytes(text.substring(from).getBytes(StandardCharsets.UTF_8));
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("query is not UTF-8: " + text, e);
    }
  }

  /** An ASCII hex digit's value, or -1 (Character.digit would also take other scripts' digits). */
  private static int hexValue(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  private static String encode(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(UPPER_HEX[c >> 4]).append(UPPER_HEX[c & 0xF]);
      }
    }
    return out.toString();
  }
}
