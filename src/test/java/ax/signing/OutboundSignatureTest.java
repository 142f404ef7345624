package ax.signing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboundSignatureTest {

  private static final String SECRET = "webhook-secret";
  private static final long SENT_AT = 1_764_460_800_000L;
  private static final byte[] BODY = "{\"task_id\":\"42\",\"status\":\"SUCCESS\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void headerCarriesTheTimestampAndTheHmacOfTimestampDotBody() {
    String expectedMac = RequestSigning.hmacSha256Hex(SECRET, SENT_AT + "." + new String(BODY, StandardCharsets.UTF_8));

    assertEquals("t=" + SENT_AT + ",v1=" + expectedMac, OutboundSignature.header(SECRET, SENT_AT, BODY));
  }

  @Test
  void receiverAcceptsAGenuineCallWithinTheTolerance() {
    String header = OutboundSignature.header(SECRET, SENT_AT, BODY);

    assertTrue(OutboundSignature.verify(SECRET, header, BODY, SENT_AT + 60_000, 300_000));
    assertTrue(OutboundSignature.verify(SECRET, header, BODY, SENT_AT - 300_000, 300_000));
  }

  @Test
  void receiverRejectsACallOutsideTheTolerance() {
    String header = OutboundSignature.header(SECRET, SENT_AT, BODY);

    assertFalse(OutboundSignature.verify(SECRET, header, BODY, SENT_AT + 300_001, 300_000));
  }

  @Test
  void receiverRejectsATamperedBodyOrAWrongSecret() {
    String header = OutboundSignature.header(SECRET, SENT_AT, BODY);

    assertFalse(OutboundSignature.verify(SECRET, header, "{}".getBytes(StandardCharsets.UTF_8), SENT_AT, 300_000));
    assertFalse(OutboundSignature.verify("other-secret", header, BODY, SENT_AT, 300_000));
  }

  @Test
  void receiverRejectsAReplayedSignatureUnderANewTimestamp() {
    String mac = OutboundSignature.header(SECRET, SENT_AT, BODY).split(",v1=")[1];
    String moved = "t=" + (SENT_AT + 1) + ",v1=" + mac;

    assertFalse(OutboundSignature.verify(SECRET, moved, BODY, SENT_AT, 300_000));
  }

  @Test
  void headerWithASecondTimestampIsRejectedAsAmbiguous() {
    String genuine = OutboundSignature.header(SECRET, SENT_AT, BODY);

    assertFalse(OutboundSignature.verify(SECRET, "t=" + (SENT_AT + 1) + "," + genuine, BODY, SENT_AT, 300_000));
    assertFalse(OutboundSignature.verify(SECRET, genuine + ",t=" + SENT_AT, BODY, SENT_AT, 300_000));
  }

  @Test
  void anyOfSeveralSignaturesMayMatchDuringKeyRotation() {
    String genuine = OutboundSignature.header(SECRET, SENT_AT, BODY);
    String rotated = genuine.replace(",v1=", ",v1=" + "0".repeat(64) + ",v1=");

    assertTrue(OutboundSignature.verify(SECRET, rotated, BODY, SENT_AT, 300_000));
  }

  @Test
  void emptyAndNullBodiesSignTheSame() {
    String header = OutboundSignature.header(SECRET, SENT_AT, null);

    assertTrue(OutboundSignature.verify(SECRET, header, new byte[0], SENT_AT, 0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "garbage", "v1=abc", "t=1764460800000", "t=abc,v1=abc",
      "t=1764460800000,t=1764460800000,v1=abc", "t=99999999999999999999,v1=abc"})
  void malformedHeaderIsRejected(String header) {
    assertFalse(OutboundSignature.verify(SECRET, header, BODY, SENT_AT, 300_000));
  }

  @Test
  void missingHeaderOrSecretIsRejected() {
    String header = OutboundSignature.header(SECRET, SENT_AT, BODY);

    assertFalse(OutboundSignature.verify(SECRET, null, BODY, SENT_AT, 300_000));
    assertFalse(OutboundSignature.verify(null, header, BODY, SENT_AT, 300_000));
  }
}
