package ax.signing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestSigningTest {

  static final String SECRET = "s3cr3t-key-0123456789abcdef";
  static final String TIMESTAMP = "1764460800000";
  static final String POST_BODY = "{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,"
      + "\"callback_url\":\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}";
  static final String POST_SIGNATURE = "6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808";
  static final String GET_SIGNATURE = "37fcf9f5fa5d1190823eabab61d8d94a2f945f191dd5b7bf6aa1c82e4feb5b50";

  @Test
  void postTestVectorFromTheApiSpecificationMatches() {
    String toSign = RequestSigning.stringToSign("POST", "/openapi/v1/tasks", RequestSigning.canonicalQuery(null),
        TIMESTAMP, "n0nce-abc123", POST_BODY.getBytes(StandardCharsets.UTF_8));

    assertTrue(toSign.endsWith("\n75e969329036768945eec47fa14cefb9ef90a875a0724b9fb1e735de988d83b9"), toSign);
    assertEquals(POST_SIGNATURE, RequestSigning.hmacSha256Hex(SECRET, toSign));
  }

  @Test
  void getTestVectorFromTheApiSpecificationMatches() {
    String canonical = RequestSigning.canonicalQuery("task_type=coupon.grant&status=DELAYED&limit=50");
    String toSign = RequestSigning.stringToSign("GET", "/openapi/v1/tasks", canonical, TIMESTAMP,
        "n0nce-xyz789", new byte[0]);

    assertEquals("limit=50&status=DELAYED&task_type=coupon.grant", canonical);
    assertEquals(GET_SIGNATURE, RequestSigning.hmacSha256Hex(SECRET, toSign));
  }

  @Test
  void stringToSignJoinsTheSixPartsWithNewlines() {
    assertEquals("GET\n/p\na=1\n123\nnonce123\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        RequestSigning.stringToSign("get", "/p", "a=1", "123", "nonce123", null));
  }

  @Test
  void nullCanonicalQueryCountsAsEmpty() {
    assertEquals(RequestSigning.stringToSign("GET", "/p", "", "1", "nonce123", new byte[0]),
        RequestSigning.stringToSign("GET", "/p", null, "1", "nonce123", null));
  }

  @Test
  void missingQueryCanonicalisesToTheEmptyString() {
    assertEquals("", RequestSigning.canonicalQuery(null));
    assertEquals("", RequestSigning.canonicalQuery(""));
    assertEquals("", RequestSigning.canonicalQuery("&&"));
  }

  @Test
  void parametersAreSortedByName() {
    assertEquals("a=2&b=x&c=0", RequestSigning.canonicalQuery("b=x&c=0&a=2"));
  }

  /** Finding 7: with two, the server would run the first while the signature sorts both (swap = new meaning). */
  @ParameterizedTest
  @ValueSource(strings = {"status=READY&status=FAILED", "a=1&b=2&a=1", "a&a=", "%61=1&a=2", "x=1&x"})
  void aParameterNamedTwiceIsRefused(String rawQuery) {
    assertThrows(RequestSigning.DuplicateParameterException.class, () -> RequestSigning.canonicalQuery(rawQuery));
    assertThrows(RequestSigning.DuplicateParameterException.class, () -> RequestSigning.parameters(rawQuery));
  }

  /** Finding 7: the server executes exactly what the signature covers: '+' is a plus, not a space. */
  @Test
  void theExecutedParametersAreTheSignedOnes() {
    assertEquals(java.util.Map.of("q", "a+b"), RequestSigning.parameters("q=a+b"));
    assertEquals(java.util.Map.of("q", "a+b"), RequestSigning.parameters("q=a%2Bb"));
    assertEquals(java.util.Map.of("q", "a b"), RequestSigning.parameters("q=a%20b"));
    assertEquals(RequestSigning.canonicalQuery("q=a%2Bb"), RequestSigning.canonicalQuery("q=a+b"));
  }

  @Test
  void parameterWithoutEqualsSignGetsAnEmptyValue() {
    assertEquals("flag=&x=1", RequestSigning.canonicalQuery("x=1&flag"));
  }

  @Test
  void encodingIsNormalisedToRfc3986WithUpperCaseHex() {
    assertEquals("q=a%20b%2Fc~d", RequestSigning.canonicalQuery("q=a%20b%2fc%7Ed"));
    assertEquals("q=a%20b%2Fc~d", RequestSigning.canonicalQuery("q=a b/c~d"));
  }

  @Test
  void plusIsALiteralPlusNotASpace() {
    assertEquals("q=a%2Bb", RequestSigning.canonicalQuery("q=a+b"));
  }

  @Test
  void equalsSignInsideAValueIsKeptEncoded() {
    assertEquals("expr=a%3Db", RequestSigning.canonicalQuery("expr=a=b"));
  }

  @Test
  void nonAsciiIsEncodedAsUtf8BytesAndSortedByCodePoint() {
    assertEquals("a=~&b=%C3%A9&c=%EF%BD%9E&d=%F0%9F%98%80",
        RequestSigning.canonicalQuery("d=%F0%9F%98%80&c=%EF%BD%9E&b=%C3%A9&a=%7e"));
    assertEquals("~=1&%C3%A9=2", RequestSigning.canonicalQuery("%C3%A9=2&%7e=1"));
    assertEquals("%EF%BD%9E=1&%F0%9F%98%80=2", RequestSigning.canonicalQuery("%F0%9F%98%80=2&%EF%BD%9E=1"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a=%", "a=%4", "a=%zz", "a=%C3", "%=1", "a=%\u0663\u0663"})
  void malformedPercentEncodingIsRejected(String rawQuery) {
    assertThrows(IllegalArgumentException.class, () -> RequestSigning.canonicalQuery(rawQuery));
  }

  @Test
  void hmacIsLowercaseHex() {
    String mac = RequestSigning.hmacSha256Hex("key", "The quick brown fox jumps over the lazy dog");

    assertEquals("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8", mac);
  }

  @Test
  void constantTimeEqualsComparesContentAndIsNullSafe() {
    assertTrue(RequestSigning.constantTimeEquals("abc", "abc"));
    assertFalse(RequestSigning.constantTimeEquals("abc", "abd"));
    assertFalse(RequestSigning.constantTimeEquals("abc", "abcd"));
    assertFalse(RequestSigning.constantTimeEquals(null, "abc"));
    assertFalse(RequestSigning.constantTimeEquals("abc", null));
    assertFalse(RequestSigning.constantTimeEquals(null, null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"n0nce-abc123", "abcdefgh", "A_B-c_9-",
      "0123456789012345678901234567890123456789012345678901234567890123"})
  void wellFormedNonceIsAccepted(String nonce) {
    assertTrue(RequestSigning.isValidNonce(nonce));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "short12", "has space!", "dots.are.not.ok", "ünïcödéé",
      "01234567890123456789012345678901234567890123456789012345678901234"})
  void malformedNonceIsRejected(String nonce) {
    assertFalse(RequestSigning.isValidNonce(nonce));
  }

  @Test
  void nullNonceIsRejected() {
    assertFalse(RequestSigning.isValidNonce(null));
  }
}
