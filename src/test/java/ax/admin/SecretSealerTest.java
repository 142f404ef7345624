package ax.admin;

import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecretSealerTest {
  private static final String MASTER = Base64.getEncoder().encodeToString(new byte[32]);
  private static final String OTHER_MASTER = Base64.getEncoder().encodeToString("x".repeat(32).getBytes());

  private final SecretSealer sealer = SecretSealer.fromBase64(MASTER);

  @Test
  void aSealedSecretOpensToItselfAndNeverShowsIt() {
    String sealed = sealer.seal("ak_1", "s3cr3t-key-0123456789abcdef");
    assertTrue(sealed.startsWith(SecretSealer.PREFIX));
    assertFalse(sealed.contains("s3cr3t"));
    assertEquals("s3cr3t-key-0123456789abcdef", sealer.open("ak_1", sealed));
  }

  @Test
  void everySealingUsesANewIv() {
    assertNotEquals(sealer.seal("ak_1", "same-secret-0123456789"), sealer.seal("ak_1", "same-secret-0123456789"));
  }

  @Test
  void aSecretMovedToAnotherKeyOrSealedUnderAnotherMasterKeyDoesNotOpen() {
    String sealed = sealer.seal("ak_1", "s3cr3t-key-0123456789abcdef");
    assertThrows(IllegalArgumentException.class, () -> sealer.open("ak_2", sealed));
    assertThrows(IllegalArgumentException.class, () -> SecretSealer.fromBase64(OTHER_MASTER).open("ak_1", sealed));
  }

  @Test
  void anAlteredSealedSecretDoesNotOpen() {
    String sealed = sealer.seal("ak_1", "s3cr3t-key-0123456789abcdef");
    byte[] raw = Base64.getDecoder().decode(sealed.substring(SecretSealer.PREFIX.length()));
    raw[raw.length - 1] ^= 1;
    String altered = SecretSealer.PREFIX + Base64.getEncoder().encodeToString(raw);
    assertThrows(IllegalArgumentException.class, () -> sealer.open("ak_1", altered));
    assertThrows(IllegalArgumentException.class, () -> sealer.open("ak_1", SecretSealer.PREFIX + "AAAA"));
    assertThrows(IllegalArgumentException.class, () -> sealer.open("ak_1", SecretSealer.PREFIX + "%%%"));
  }

  @Test
  void afterAMasterKeyChangeSecretsOpenUnderThePreviousKeyUntilResealed() {
    String underOld = SecretSealer.fromBase64(OTHER_MASTER).seal("ak_1", "old-sealed-0123456789");
    SecretSealer changing = sealer.withPrevious(OTHER_MASTER);
    assertEquals("old-sealed-0123456789", changing.open("ak_1", underOld));
    assertFalse(changing.sealedUnderCurrentKey("ak_1", underOld), "it needs resealing");
    String resealed = changing.seal("ak_1", changing.open("ak_1", underOld));
    assertTrue(changing.sealedUnderCurrentKey("ak_1", resealed));
    assertEquals("old-sealed-0123456789", sealer.open("ak_1", resealed), "the new key alone opens it now");
    assertThrows(IllegalArgumentException.class, () -> sealer.open("ak_1", underOld), "without the previous key");
    assertFalse(changing.sealedUnderCurrentKey("ak_1", "in-clear-0123456789"));
  }

  @Test
  void aSecretStoredInClearIsReadAsItIs() {
    assertEquals("plain-secret-0123456789", sealer.open("ak_1", "plain-secret-0123456789"));
  }

  @Test
  void theMasterKeyMustBeBase64OfThirtyTwoBytesAndIsNeverEchoed() {
    IllegalArgumentException shortKey = assertThrows(IllegalArgumentException.class,
        () -> SecretSealer.fromBase64(Base64.getEncoder().encodeToString(new byte[16])));
    assertTrue(shortKey.getMessage().contains("32 bytes"));
    IllegalArgumentException notBase64 = assertThrows(IllegalArgumentException.class,
        () -> SecretSealer.fromBase64("not base64 at all: my-master-key"));
    assertFalse(notBase64.getMessage().contains("my-master-key"));
    assertThrows(IllegalArgumentException.class, () -> SecretSealer.fromBase64(null));
  }

  @Test
  void newKeysAndSecretsHaveTheDocumentedShape() {
    assertTrue(KeyMaterial.newAccessKey().matches("ak_[a-z0-9]{20}"));
    assertTrue(KeyMaterial.newSecret().matches("[A-Za-z0-9_-]{43}"));
    assertNotEquals(KeyMaterial.newSecret(), KeyMaterial.newSecret());
  }
}
