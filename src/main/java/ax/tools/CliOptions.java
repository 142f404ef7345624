package ax.tools;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} pairs of a subcommand, with the names it knows checked up front. */
final class CliOptions {
  private CliOptions() {
  }

  /** @throws IllegalArgumentException on a stray word, a missing value or an unknown option */
  static Map<String, String> parse(String[] args, Set<String> known) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      String name = args[i].substring(2);
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown option --" + name);
      }
      opts.put(name, args[++i]);
    }
    return opts;
  }
}
