package ax.spring;

import java.util.Optional;

/**
 * Vert.x 5, under the executor SDK, needs Netty 4.2, and Spring Boot 3.5's dependency management pins
 * Netty 4.1. An application that adds this starter to a Boot build without overriding the Netty version
 * would fail with {@code NoClassDefFoundError: io/netty/channel/MultiThreadIoEventLoopGroup} from deep
 * inside Vert.x; this check says what is wrong and what to change before any Vert.x class runs.
 */
final class NettyCompatibility {
  /** The Netty Vert.x 5.0.7 was built with, which this starter's own build uses. */
  static final String VERSION = "4.2.9.Final";
  private static final String NETTY_42_CLASS = "io.netty.channel.MultiThreadIoEventLoopGroup";

  private NettyCompatibility() {
  }

  /** @throws AxExecutorConfigurationException when the classpath has a Netty older than 4.2 */
  static void check(ClassLoader loader) {
    boolean has42;
    try {
      Class.forName(NETTY_42_CLASS, false, loader);
      has42 = true;
    } catch (ClassNotFoundException | LinkageError e) {
      has42 = false;
    }
    Optional<AxExecutorConfigurationException> problem = problem(has42, nettyCommonVersion(loader));
    if (problem.isPresent()) {
      throw problem.get();
    }
  }

  /** The decision, apart from the classpath: {@code version} is netty-common's, or null if unknown. */
  static Optional<AxExecutorConfigurationException> problem(boolean has42, String version) {
    if (has42) {
      return Optional.empty();
    }
    return Optional.of(new AxExecutorConfigurationException("The ax executor runs on Vert.x 5, which needs Netty 4.2,"
        + " but the classpath has netty-common " + (version == null ? "of an older version" : version)
        + " (Spring Boot 3.5 manages Netty 4.1).",
        "Use Netty " + VERSION + ": with spring-boot-starter-parent set the Maven property"
            + " <netty.version>" + VERSION + "</netty.version>; with the spring-boot-dependencies BOM import"
            + " io.netty:netty-bom:" + VERSION + " before it; with Gradle's Spring dependency management"
            + " ext['netty.version'] = '" + VERSION + "'."));
  }

  private static String nettyCommonVersion(ClassLoader loader) {
    // io.netty.util.Version is in netty-common 4.1 and 4.2 alike; null if the jar carries no version file
    io.netty.util.Version common = io.netty.util.Version.identify(loader).get("netty-common");
    return common == null ? null : common.artifactVersion();
  }
}
