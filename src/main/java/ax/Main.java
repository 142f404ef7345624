package ax;

import ax.tools.AxCli;

/**
 * {@code java -jar ax.jar <command>}: {@code server} (configured from the environment), {@code dev}
 * (embedded PostgreSQL, prints a key to use), {@code sign} (signs a request for curl users), {@code executor}
 * (a demo executor, see {@link ax.executor.AxExecutor}) and {@code executor-token} (mints its token).
 * The command line is {@link AxCli}'s.
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    System.exit(AxCli.commandLine(System.getenv(), () -> { }).execute(args));
  }
}
