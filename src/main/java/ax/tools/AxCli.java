package ax.tools;

import ax.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.Map;

/**
 * The command line of {@code java -jar ax.jar}: one picocli command per job ({@code server}, {@code dev},
 * {@code config}, {@code sign}, {@code executor}, {@code executor-token}, {@code tenants}, {@code keys}, {@code admin-token}), each with {@code --help} and {@code --version}.
 * Anything it cannot parse (an unknown flag, a missing required one, a stray word) is refused with the
 * reason on stderr and exit code 2 before the command does anything: a mistyped flag of {@code sign}
 * must not become a request signed without it. Parsing needs no process: tests build
 * {@link #commandLine} with their own environment and call {@code execute}.
 */
public final class AxCli {
  /** Exit code of a command line that could not be used. */
  public static final int USAGE = CommandLine.ExitCode.USAGE;

  private AxCli() {
  }

  /**
   * @param env        the environment the commands read (AX_* settings, tokens, secrets)
   * @param beforeRun  runs once the arguments are known to be good, before the command (the launcher
   *                   installs logging here); a {@link ConfigException} from it refuses the run with exit 2
   */
  public static CommandLine commandLine(Map<String, String> env, Runnable beforeRun) {
    CommandLine cli = new CommandLine(new AxCommand())
        .addSubcommand(new ServerCommand(env))
        .addSubcommand(new DevCommand(env))
        .addSubcommand(new ConfigCommand(env))
        .addSubcommand(new SignCommand())
        .addSubcommand(new ExecutorCommand(env))
        .addSubcommand(new ExecutorTokenCommand(env))
        .addSubcommand("tenants", AdminCommands.tenants(env))
        .addSubcommand("keys", AdminCommands.keys(env))
        .addSubcommand(new AdminCommands.AdminToken(env))
        .addSubcommand(new CommandLine.HelpCommand());
    // Set after the subcommands are added: picocli applies these to the commands present at the call.
    // An argument starting with '@' is a value (a body may start with one), not a file of arguments.
    cli.setExpandAtFiles(false);
    cli.setParameterExceptionHandler(AxCli::refuse);
    cli.setExecutionStrategy(parsed -> {
      Integer helped = CommandLine.executeHelpRequest(parsed);
      if (helped != null) {
        return helped;
      }
      try {
        beforeRun.run();
      } catch (ConfigException e) {
        cli.getErr().println("ax: configuration error: " + e.getMessage());
        cli.getErr().flush();
        return USAGE;
      }
      return new CommandLine.RunLast().execute(parsed);
    });
    return cli;
  }

  /** The reason, picocli's "did you mean", the command's synopsis and where to read more; then exit 2. */
  private static int refuse(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    String name = cmd.getCommandSpec().qualifiedName();
    ParameterException cause = unknownBeforeMissing(e);
    err.println(name + ": " + cause.getMessage());
    UnmatchedArgumentException.printSuggestions(cause, err);
    if (cause != e) {
      err.println(name + ": " + e.getMessage());
    }
    err.print(cmd.getHelp().fullSynopsis());
    err.println("Every option: java -jar ax.jar" + name.substring("ax".length()) + " --help");
    err.flush();
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /**
   * picocli reports a missing required option before an unknown one, yet the unknown one is usually the
   * cause ({@code --kee} for {@code --key}): report it first, with its suggestion.
   */
  private static ParameterException unknownBeforeMissing(ParameterException e) {
    CommandLine cmd = e.getCommandLine();
    if (e instanceof UnmatchedArgumentException || cmd.getParseResult() == null
        || cmd.getParseResult().unmatched().isEmpty()) {
      return e;
    }
    return new UnmatchedArgumentException(cmd, cmd.getParseResult().unmatched());
  }
}
