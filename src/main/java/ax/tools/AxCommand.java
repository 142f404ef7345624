package ax.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code java -jar ax.jar} itself: without a command it prints the usage and exits 2. */
@Command(name = "ax", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = "A distributed task scheduler. Run as: java -jar ax.jar <command> [options]",
    footer = {"", "server and dev take every setting from AX_* environment variables (README.md, Configuration).",
        "AX_LOG_LEVEL and AX_LOG_FORMAT apply to every command."})
final class AxCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println("ax: a command is required");
    spec.commandLine().usage(spec.commandLine().getErr());
    return spec.exitCodeOnInvalidInput();
  }
}
