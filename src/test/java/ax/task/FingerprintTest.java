package ax.task;

import ax.json.CanonicalJson;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class FingerprintTest {

  private static String digest(Object payload) {
    return Fingerprint.payloadDigest(CanonicalJson.of(payload));
  }

  @Test
  void theSamePayloadSpelledDifferentlyHasOneFingerprint() {
    JsonObject a = new JsonObject("{\"b\":1,\"a\":[1.0,\"x\"]}");
    JsonObject b = new JsonObject("{ \"a\" : [ 1, \"x\" ], \"b\" : 1e0 }");
    assertEquals(Fingerprint.of("t1", "coupon.grant", digest(a)), Fingerprint.of("t1", "coupon.grant", digest(b)));
  }

  @Test
  void tenantTypeAndPayloadEachCount() {
    String d = digest(new JsonObject().put("user", 42));
    assertNotEquals(Fingerprint.of("t1", "coupon.grant", d), Fingerprint.of("t2", "coupon.grant", d));
    assertNotEquals(Fingerprint.of("t1", "coupon.grant", d), Fingerprint.of("t1", "coupon.revoke", d));
    assertNotEquals(Fingerprint.of("t1", "coupon.grant", d),
        Fingerprint.of("t1", "coupon.grant", digest(new JsonObject().put("user", 43))));
  }

  /** Length-prefixed parts: moving characters from the tenant to the type changes the fingerprint. */
  @Test
  void partsCannotRunIntoEachOther() {
    String d = digest(null);
    assertNotEquals(Fingerprint.of("ab", "c", d), Fingerprint.of("a", "bc", d));
  }

  @Test
  void noPayloadIsTheJsonNullPayload() {
    assertEquals(CanonicalJson.of(null), "null");
  }
}
