package ax.protocol;

import java.util.regex.Pattern;

/**
 * The naming rules of the protocol. Executor ids end up in event-bus addresses and log lines, processor
 * names in SQL and dashboards; both use a small alphabet so neither can smuggle anything in.
 */
public final class Names {
  public static final int EXECUTOR_ID_MAX = 64;
  public static final int PROCESSOR_MAX = 128;
  private static final Pattern EXECUTOR_ID = Pattern.compile("[A-Za-z0-9._:-]{1," + EXECUTOR_ID_MAX + "}");
  private static final Pattern PROCESSOR = Pattern.compile("[A-Za-z0-9._:-]{1," + PROCESSOR_MAX + "}");

  private Names() {
  }

  public static boolean isExecutorId(String id) {
    return id != null && EXECUTOR_ID.matcher(id).matches();
  }

  public static String requireExecutorId(String id) {
    if (!isExecutorId(id)) {
      throw new ProtocolException("invalid executor id '" + id + "': expected 1-" + EXECUTOR_ID_MAX
          + " of [A-Za-z0-9._:-]");
    }
    return id;
  }

  public static boolean isProcessor(String name) {
    return name != null && PROCESSOR.matcher(name).matches();
  }

  public static String requireProcessor(String name) {
    if (!isProcessor(name)) {
      throw new ProtocolException("invalid processor name '" + name + "': expected 1-" + PROCESSOR_MAX
          + " of [A-Za-z0-9._:-]");
    }
    return name;
  }
}
