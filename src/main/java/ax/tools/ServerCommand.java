package ax.tools;

import picocli.CommandLine.Command;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ax server}: a scheduler node, every setting from the environment. */
@Command(name = "server", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = "Runs a scheduler node. Needs AX_PG_URL; every other setting has a default.",
    footer = {"", "Settings are AX_* environment variables (README.md, Configuration), e.g.",
        "  AX_PG_URL=postgresql://postgres@127.0.0.1:5432/ax AX_HTTP_PORT=8080 java -jar ax.jar server"})
final class ServerCommand implements Callable<Integer> {
  private final Map<String, String> env;

  ServerCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    return NodeLauncher.run(env, false);
  }
}
