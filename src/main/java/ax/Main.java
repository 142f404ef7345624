package ax;

import ax.config.LogSettings;
import ax.logging.LogSetup;
import ax.logging.ShutdownSafeLogManager;
import ax.tools.AxCli;

import java.util.Map;

/**
 * {@code java -jar ax.jar <command>}: {@code server} (configured from the environment), {@code dev}
 * (embedded PostgreSQL, prints a key to use), {@code sign} (signs a request for curl users), {@code executor}
 * (a demo executor, see {@link ax.executor.AxExecutor}) and {@code executor-token} (mints its token).
 * The command line is {@link AxCli}'s; logging is installed once the command line is known to be good.
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    // before anything touches java.util.logging: see ShutdownSafeLogManager for why
    if (System.getProperty("java.util.logging.manager") == null) {
      System.setProperty("java.util.logging.manager", ShutdownSafeLogManager.class.getName());
    }
    Map<String, String> env = System.getenv();
    System.exit(AxCli.commandLine(env, () -> LogSetup.install(LogSettings.fromEnv(env))).execute(args));
  }
}
