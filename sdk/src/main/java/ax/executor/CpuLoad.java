package ax.executor;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/** The heartbeat's {@code cpu_load}: the one-minute system load average per core, 0 where unavailable. */
final class CpuLoad {
  private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

  private CpuLoad() {
  }

  static double perCore() {
    double load = OS.getSystemLoadAverage();
    int cores = Runtime.getRuntime().availableProcessors();
    if (load < 0 || cores < 1) {
      return 0;
    }
    return Math.round(load / cores * 100.0) / 100.0;
  }
}
