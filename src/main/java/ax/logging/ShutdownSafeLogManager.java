package ax.logging;

import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * The JVM's own LogManager resets itself, removing and closing every handler, in a shutdown hook that
 * runs at the same time as ax's graceful stop: everything the stop logged after the first few
 * milliseconds (the lease resigned, calls still unfinished at AX_DRAIN_TIMEOUT_MS, "stopped gracefully
 * in N ms") never reached the log. This LogManager skips that one reset and flushes instead; the handlers
 * ax installs write each record through at once, and the process ends right after the stop anyway.
 * {@code Main} installs it through {@code java.util.logging.manager} unless the user chose another.
 */
public final class ShutdownSafeLogManager extends LogManager {
  /** The JDK's shutdown-hook thread that calls {@link #reset()} (a private class of LogManager). */
  static final String JDK_CLEANER_THREAD_CLASS = LogManager.class.getName() + "$Cleaner";

  @Override
  public void reset() {
    if (calledByTheJdkShutdownHook()) {
      for (Handler h : Logger.getLogger("").getHandlers()) {
        h.flush();
      }
      return;
    }
    super.reset();
  }

  static boolean calledByTheJdkShutdownHook() {
    return Thread.currentThread().getClass().getName().equals(JDK_CLEANER_THREAD_CLASS);
  }
}
