package ax.tools;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of this build, from {@code ax/version.properties}, which the build fills in with the Maven
 * project version (server-pom.xml filters {@code src/main/resources-filtered}). "unknown" when the classes
 * were not built by Maven.
 */
public final class AxVersion implements CommandLine.IVersionProvider {
  private static final String RESOURCE = "/ax/version.properties";

  /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    try (InputStream in = AxVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "");
      return v.isBlank() || v.startsWith("${") ? "unknown" : v.trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"ax " + version()};
  }
}
