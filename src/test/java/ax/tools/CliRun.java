package ax.tools;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** One command line parsed and run in this JVM, its exit code and what it printed. */
record CliRun(int code, String out, String err) {

  static CliRun run(Map<String, String> env, String... args) {
    return run(env, () -> { }, args);
  }

  static CliRun run(Map<String, String> env, Runnable beforeRun, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AxCli.commandLine(env, beforeRun)
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }
}
