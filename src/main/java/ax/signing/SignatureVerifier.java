package ax.signing;

import java.util.Locale;
import java.util.Optional;

/**
 * Decides whether a signed request is authentic and fresh (API.md "Signing"), answering with the
 * error code to return when it is not. Pure: the caller looks up the secret, supplies the time, and
 * afterwards checks the nonce against its replay store — which needs I/O, and must only be consulted
 * once the signature is known to be good, or anyone could burn other clients' nonces.
 */
public final class SignatureVerifier {

  /** How far a request's timestamp may be from server time: 300 s. */
  public static final long DEFAULT_SKEW_WINDOW_MS = 300_000;
  /** Error code: the timestamp is missing, unreadable or outside the window. */
  public static final String TIMESTAMP_SKEW = "timestamp_skew";
  /** Error code: the nonce is malformed, or the signature is missing or wrong. */
  public static final String SIGNATURE_MISMATCH = "signature_mismatch";

  /** Up to 18 digits: any epoch-millisecond value, and never a {@code long} overflow. */
  private static final int TIMESTAMP_MAX_DIGITS = 18;
  /** HMAC-SHA256 as hex, either case. */
  private static final int SIGNATURE_HEX_DIGITS = 64;

  private final long skewWindowMs;

  /** @param skewWindowMs how far, either way, a timestamp may be from now; not negative */
  public SignatureVerifier(long skewWindowMs) {
    if (skewWindowMs < 0) {
      throw new IllegalArgumentException("skew window must not be negative, was " + skewWindowMs);
    }
    this.skewWindowMs = skewWindowMs;
  }

  /**
   * What can be judged from the headers alone, before the body is read: the timestamp within the
   * window, the nonce's shape, a signature that can be 64 hex digits. A request that fails here is
   * refused without reading (or buffering) its body.
   */
  public Optional<String> precheck(String timestampHeader, String nonce, String signatureHeader, long nowMs) {
    if (!RequestSigning.charsWithin(timestampHeader, 1, TIMESTAMP_MAX_DIGITS, RequestSigning::isAsciiDigit)
        || Math.abs(nowMs - Long.parseLong(timestampHeader)) > skewWindowMs) {
      return Optional.of(TIMESTAMP_SKEW);
    }
    if (!RequestSigning.isValidNonce(nonce)
        || !RequestSigning.charsWithin(signatureHeader, SIGNATURE_HEX_DIGITS, SIGNATURE_HEX_DIGITS, RequestSigning::isHexDigit)) {
      return Optional.of(SIGNATURE_MISMATCH);
    }
    return Optional.empty();
  }

  /**
   * Checks one request.
   *
   * @param rawQuery        the query as sent, without {@code ?}; null or empty when there is none
   * @param timestampHeader {@code X-Ax-Timestamp}, epoch milliseconds as text
   * @param signatureHeader {@code X-Ax-Signature}, hex; compared case-insensitively
   * @param secret          the access key's secret
   * @return empty when the request is authentic and within the window; otherwise
   *         {@value #TIMESTAMP_SKEW} or {@value #SIGNATURE_MISMATCH}
   */
  public Optional<String> verify(String method, String path, String rawQuery, String timestampHeader,
      String nonce, String signatureHeader, byte[] body, String secret, long nowMs) {
    Optional<String> headers = precheck(timestampHeader, nonce, signatureHeader, nowMs);
    if (headers.isPresent()) {
      return headers;
    }
    String canonicalQuery;
    try {
      canonicalQuery = RequestSigning.canonicalQuery(rawQuery);
    } catch (IllegalArgumentException malformedQuery) {
      return Optional.of(SIGNATURE_MISMATCH);
    }
    String expected = RequestSigning.hmacSha256Hex(secret,
        RequestSigning.stringToSign(method, path, canonicalQuery, timestampHeader, nonce, body));
    boolean matches = RequestSigning.constantTimeEquals(expected, signatureHeader.toLowerCase(Locale.ROOT));
    return matches ? Optional.empty() : Optional.of(SIGNATURE_MISMATCH);
  }
}
