package ax.tools;

import ax.config.AxConfig;
import ax.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code ax config}: the settings {@code ax server} (or, with {@code --dev}, {@code ax dev}) would run with,
 * from this environment — each AX_* variable it reads, its value and whether it is the default — checked
 * as a start checks them, without starting anything (exit 2 and the reason when one is refused). Secrets
 * are never printed.
 */
@Command(name = "config", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = "Prints the settings `ax server` (or `ax dev` with --dev) would use in this environment "
        + "(defaults marked, secrets hidden) and checks them; exit 2 names a value a node would refuse.")
final class ConfigCommand implements Callable<Integer> {
  /** Variables whose value is a secret or holds one (a chat webhook's URL is its credential). */
  private static final Pattern SECRET = Pattern.compile(".*(SECRET|_KEY|PASSWORD|TOKEN|WEBHOOK_URL).*");

  private final Map<String, String> env;
  @Option(names = "--dev", description = "the settings of `ax dev` (embedded PostgreSQL, loopback callbacks allowed)")
  private boolean dev;
  @Spec
  private CommandSpec spec;

  ConfigCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<AxConfig.Setting> settings;
    try {
      settings = AxConfig.settingsInEffect(env, dev);
    } catch (ConfigException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("ax config: " + e.getMessage());
      err.flush();
      return AxCli.USAGE;
    }
    for (AxConfig.Setting s : settings) {
      out.println(s.name() + "=" + shown(s) + note(s, dev));
    }
    out.flush();
    return 0;
  }

  private static String note(AxConfig.Setting s, boolean dev) {
    if (s.set()) {
      return "";
    }
    if (s.name().equals("AX_NODE_ID")) {
      return "   # default: node-<random>, a new one at every start";
    }
    // `ax dev` fills these two in itself before it reads its settings (NodeLauncher)
    if (dev && s.name().equals("AX_PG_URL")) {
      return "   # default: an embedded PostgreSQL, discarded on exit";
    }
    if (dev && s.name().equals("AX_BOOTSTRAP_KEY")) {
      return "   # default: dev-<random>, printed at start";
    }
    return s.value() == null || s.value().isEmpty() ? "   # not set" : "   # default";
  }

  private static String shown(AxConfig.Setting s) {
    if (s.value() == null) {
      return "";
    }
    if (s.name().equals("AX_NODE_ID") && !s.set()) {
      return "";
    }
    if (SECRET.matcher(s.name()).matches()) {
      return "<hidden>";
    }
    return s.name().endsWith("_URL") ? withoutPassword(s.value()) : s.value();
  }

  /** {@code postgresql://user:pw@host/db} → {@code postgresql://user:<hidden>@host/db}. */
  private static String withoutPassword(String url) {
    try {
      String userInfo = URI.create(url).getRawUserInfo();
      if (userInfo == null || !userInfo.contains(":")) {
        return url;
      }
      String user = userInfo.substring(0, userInfo.indexOf(':'));
      return url.replace(userInfo + "@", user + ":<hidden>@");
    } catch (IllegalArgumentException e) {
      return "<not a URL; hidden>";
    }
  }
}
