package ax.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The W3C traceparent rules (https://www.w3.org/TR/trace-context/#traceparent-header). */
class TraceParentTest {
  private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void theSpecExampleIsValidAndTakesApart() {
    assertTrue(TraceParent.isValid(VALID));
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", TraceParent.traceId(VALID));
    assertEquals("00f067aa0ba902b7", TraceParent.spanId(VALID));
    assertTrue(TraceParent.sampled(VALID));
    assertFalse(TraceParent.sampled(VALID.substring(0, 53) + "00"));
    assertEquals(VALID, TraceParent.format("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true));
  }

  @Test
  void malformedValuesAreInvalid() {
    assertFalse(TraceParent.isValid(null));
    assertFalse(TraceParent.isValid(""));
    assertFalse(TraceParent.isValid(VALID.toUpperCase()), "upper-case hex is not allowed");
    assertFalse(TraceParent.isValid("ff" + VALID.substring(2)), "version ff is forbidden");
    assertFalse(TraceParent.isValid("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), "zero trace id");
    assertFalse(TraceParent.isValid("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"), "zero span id");
    assertFalse(TraceParent.isValid(VALID + "-x"), "version 00 has exactly four fields");
    assertFalse(TraceParent.isValid(VALID.replace('-', '_')));
    assertFalse(TraceParent.isValid(VALID.substring(0, 54)));
  }

  @Test
  void aLaterVersionIsReadAsVersion00() {
    assertTrue(TraceParent.isValid("01" + VALID.substring(2)));
    assertTrue(TraceParent.isValid("01" + VALID.substring(2) + "-future"));
    assertFalse(TraceParent.isValid("01" + VALID.substring(2) + "future"));
  }

  @Test
  void readersKeepOnlyWhatIsValid() {
    assertEquals(VALID, TraceParent.orNull(VALID));
    assertNull(TraceParent.orNull(42));
    assertNull(TraceParent.orNull("00-bad"));
    assertEquals("a=b", TraceParent.stateOrNull("a=b"));
    assertNull(TraceParent.stateOrNull(""));
    assertNull(TraceParent.stateOrNull("x".repeat(TraceParent.MAX_TRACESTATE + 1)));
  }
}
