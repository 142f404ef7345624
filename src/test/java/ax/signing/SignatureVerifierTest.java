package ax.signing;

import static ax.signing.RequestSigningTest.GET_SIGNATURE;
import static ax.signing.RequestSigningTest.POST_BODY;
import static ax.signing.RequestSigningTest.POST_SIGNATURE;
import static ax.signing.RequestSigningTest.SECRET;
import static ax.signing.RequestSigningTest.TIMESTAMP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class SignatureVerifierTest {

  private static final long SIGNED_AT = Long.parseLong(TIMESTAMP);
  private static final byte[] BODY = POST_BODY.getBytes(StandardCharsets.UTF_8);

  private final SignatureVerifier verifier = new SignatureVerifier(SignatureVerifier.DEFAULT_SKEW_WINDOW_MS);

  private Optional<String> verifyPost(String timestamp, String nonce, String signature, byte[] body, long nowMs) {
    return verifier.verify("POST", "/openapi/v1/tasks", null, timestamp, nonce, signature, body, SECRET, nowMs);
  }

  @Test
  void correctlySignedPostIsAccepted() {
    assertEquals(Optional.empty(), verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT));
  }

  @Test
  void correctlySignedGetIsAcceptedWhateverTheParameterOrder() {
    Optional<String> verdict = verifier.verify("GET", "/openapi/v1/tasks",
        "status=DELAYED&limit=50&task_type=coupon.grant", TIMESTAMP, "n0nce-xyz789", GET_SIGNATURE,
        null, SECRET, SIGNED_AT + 1_000);

    assertEquals(Optional.empty(), verdict);
  }

  @Test
  void upperCaseSignatureIsAccepted() {
    String upper = POST_SIGNATURE.toUpperCase(Locale.ROOT);

    assertEquals(Optional.empty(), verifyPost(TIMESTAMP, "n0nce-abc123", upper, BODY, SIGNED_AT));
  }

  @Test
  void timestampExactlyAtTheEdgeOfTheWindowIsAccepted() {
    assertEquals(Optional.empty(), verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT + 300_000));
    assertEquals(Optional.empty(), verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT - 300_000));
  }

  @Test
  void timestampOutsideTheWindowIsSkewEvenWithAValidSignature() {
    assertEquals(Optional.of("timestamp_skew"),
        verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT + 300_001));
    assertEquals(Optional.of("timestamp_skew"),
        verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT - 300_001));
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "abc", "1764460800000.5", "-1764460800000", "+1764460800000",
      "99999999999999999999999", "1234567890123456789", "\u0661\u0667\u0666\u0664\u0664\u0666\u0660\u0668\u0660\u0660\u0660\u0660\u0660",
      "1764460800000 "})
  void missingOrUnreadableTimestampIsSkew(String timestamp) { // the Arabic-Indic digits would parse as a long
    assertEquals(Optional.of("timestamp_skew"), verifyPost(timestamp, "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT));
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"short", "bad nonce!", ""})
  void missingOrMalformedNonceIsSignatureMismatch(String nonce) {
    assertEquals(Optional.of("signature_mismatch"), verifyPost(TIMESTAMP, nonce, POST_SIGNATURE, BODY, SIGNED_AT));
  }

  /** 63 and 65 hex digits, a non-hex letter, a space: refused before any HMAC is computed. */
  @ParameterizedTest
  @ValueSource(strings = {"", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
      "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      "0123456789abcdef0123456789abcdef 123456789abcdef0123456789abcdef"})
  void malformedSignatureIsSignatureMismatch(String signature) {
    assertEquals(Optional.of("signature_mismatch"), verifier.precheck(TIMESTAMP, "n0nce-abc123", signature, SIGNED_AT));
  }

  @Test
  void wellFormedHeadersPassThePrecheck() {
    assertEquals(Optional.empty(), verifier.precheck(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, SIGNED_AT));
    assertEquals(Optional.empty(),
        verifier.precheck(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE.toUpperCase(Locale.ROOT), SIGNED_AT));
  }

  @Test
  void missingSignatureIsSignatureMismatch() {
    assertEquals(Optional.of("signature_mismatch"), verifyPost(TIMESTAMP, "n0nce-abc123", null, BODY, SIGNED_AT));
  }

  @Test
  void oneChangedBodyByteIsSignatureMismatch() {
    byte[] tampered = BODY.clone();
    tampered[tampered.length - 3] = '3';

    assertEquals(Optional.of("signature_mismatch"),
        verifyPost(TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, tampered, SIGNED_AT));
  }

  @Test
  void changedNonceMethodPathQueryOrSecretIsSignatureMismatch() {
    assertEquals(Optional.of("signature_mismatch"),
        verifyPost(TIMESTAMP, "n0nce-abc124", POST_SIGNATURE, BODY, SIGNED_AT));
    assertEquals(Optional.of("signature_mismatch"), verifier.verify("PUT", "/openapi/v1/tasks", null,
        TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SECRET, SIGNED_AT));
    assertEquals(Optional.of("signature_mismatch"), verifier.verify("POST", "/openapi/v1/tasks/batch", null,
        TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SECRET, SIGNED_AT));
    assertEquals(Optional.of("signature_mismatch"), verifier.verify("POST", "/openapi/v1/tasks", "x=1",
        TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SECRET, SIGNED_AT));
    assertEquals(Optional.of("signature_mismatch"), verifier.verify("POST", "/openapi/v1/tasks", null,
        TIMESTAMP, "n0nce-abc123", POST_SIGNATURE, BODY, SECRET + "x", SIGNED_AT));
  }

  @Test
  void signatureOverADifferentTimestampIsSignatureMismatch() {
    assertEquals(Optional.of("signature_mismatch"),
        verifyPost("1764460800001", "n0nce-abc123", POST_SIGNATURE, BODY, SIGNED_AT));
  }

  @Test
  void malformedQueryIsSignatureMismatch() {
    assertEquals(Optional.of("signature_mismatch"), verifier.verify("GET", "/openapi/v1/tasks", "a=%zz",
        TIMESTAMP, "n0nce-xyz789", GET_SIGNATURE, null, SECRET, SIGNED_AT));
  }

  @Test
  void negativeSkewWindowIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> new SignatureVerifier(-1));
  }
}
