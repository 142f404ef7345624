package ax.node;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which embedded PostgreSQL bundle (a {@code .txz} resource of the zonky binaries jars) {@code ax dev}
 * unpacks on which platform. The jar carries Linux x86_64 and arm64 and one macOS bundle: zonky's macOS
 * bundle is a universal binary (x86_64 and arm64 slices), shipped byte for byte as both
 * {@code darwin-amd64} and {@code darwin-arm64v8}, so the one copy serves both Macs. Any other platform
 * has none, and {@code dev} says to use a PostgreSQL of one's own. Pure: given the JVM's
 * {@code os.name} and {@code os.arch}.
 */
public final class PgBundles {
  static final String LINUX_X86_64 = "postgres-linux-x86_64.txz";
  static final String LINUX_ARM64 = "postgres-linux-arm_64.txz";
  static final String DARWIN = "postgres-darwin-x86_64.txz";

  /** For messages: the platforms {@code dev} runs PostgreSQL on. */
  public static final String SUPPORTED = "Linux x86_64 and arm64 (glibc), macOS x86_64 and arm64";

  private PgBundles() {
  }

  /** Every bundle the jar must carry. */
  public static List<String> shipped() {
    return List.of(LINUX_X86_64, LINUX_ARM64, DARWIN);
  }

  /** The bundle for this platform, if the jar carries one. */
  public static Optional<String> forPlatform(String osName, String osArch) {
    String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
    String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
    boolean x86 = arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x64");
    boolean arm = arch.equals("aarch64") || arch.equals("arm64");
    if (os.startsWith("linux")) {
      return x86 ? Optional.of(LINUX_X86_64) : arm ? Optional.of(LINUX_ARM64) : Optional.empty();
    }
    if (os.startsWith("mac") || os.startsWith("darwin")) {
      return x86 || arm ? Optional.of(DARWIN) : Optional.empty();
    }
    return Optional.empty();
  }
}
