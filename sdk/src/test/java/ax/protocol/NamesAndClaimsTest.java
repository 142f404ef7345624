package ax.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NamesAndClaimsTest {

  @Test
  void executorIdsUseASmallAlphabetOfAtMost64Characters() {
    assertTrue(Names.isExecutorId("ex-1.zone_a:7"));
    assertTrue(Names.isExecutorId("x".repeat(64)));
    assertFalse(Names.isExecutorId("x".repeat(65)));
    assertFalse(Names.isExecutorId(""));
    assertFalse(Names.isExecutorId(null));
    assertFalse(Names.isExecutorId("ex 1"));
    assertFalse(Names.isExecutorId("ex/1"));
    assertThrows(ProtocolException.class, () -> Names.requireExecutorId("ex/1"));
  }

  @Test
  void processorNamesUseTheSameAlphabetUpTo128Characters() {
    assertTrue(Names.isProcessor("invoice.total"));
    assertTrue(Names.isProcessor("p".repeat(128)));
    assertFalse(Names.isProcessor("p".repeat(129)));
    assertFalse(Names.isProcessor("invoice total"));
  }

  @Test
  void theSubjectOfATokenIsReadWithoutTheSecret() {
    String payload = Base64.getUrlEncoder().withoutPadding()
        .encodeToString("{\"sub\":\"ex-9\",\"aud\":\"ax-executor\"}".getBytes(StandardCharsets.UTF_8));
    assertEquals("ex-9", TokenClaims.unverifiedSubject("e30." + payload + ".c2ln"));
  }

  @Test
  void somethingThatIsNotAJwtHasNoSubject() {
    assertThrows(ProtocolException.class, () -> TokenClaims.unverifiedSubject("abc"));
    assertThrows(ProtocolException.class, () -> TokenClaims.unverifiedSubject("a.!!!.c"));
    assertThrows(ProtocolException.class, () -> TokenClaims.unverifiedSubject(null));
  }

  @Test
  void thePoolRuleSendsUrgentWorkHighAndLongWorkSlow() {
    assertEquals(PoolRule.HIGH, PoolRule.forTask(7, 120_000));
    assertEquals(PoolRule.SLOW, PoolRule.forTask(5, 60_001));
    assertEquals(PoolRule.DEFAULT, PoolRule.forTask(6, 60_000));
  }
}
