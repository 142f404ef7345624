package ax.tools;

import picocli.CommandLine.Command;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ax dev}: one node on an embedded PostgreSQL, with a generated access key to try it with. */
@Command(name = "dev", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = {"Runs one node on an embedded PostgreSQL and prints an access key and secret to try it with.",
        "The data is discarded on exit; callbacks to 127.0.0.1 and localhost are allowed."},
    footer = {"", "AX_* environment variables apply as for server (README.md, Configuration)."})
final class DevCommand implements Callable<Integer> {
  private final Map<String, String> env;

  DevCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    return NodeLauncher.run(env, true);
  }
}
