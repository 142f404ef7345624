package ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** CPU seconds of a family of processes (e.g. every PostgreSQL backend), to show where a run's time went. */
public final class ProcCpu {
  private ProcCpu() {
  }

  /** All processes whose command name is {@code comm} (e.g. every PostgreSQL backend). */
  public static double ofCommand(String comm) {
    double total = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          if (Files.readString(p.resolve("comm")).trim().equals(comm)) {
            double cpu = ServerProcess.cpuSeconds(Long.parseLong(name));
            total += Double.isNaN(cpu) ? 0 : cpu;
          }
        } catch (IOException gone) {
          // the process ended while we listed
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return total;
  }

  /**
   * CPU seconds so far of the JIT compiler threads of one JVM ("C1 CompilerThre…", "C2 CompilerThre…"):
   * a drain during which they still burn CPU measures a JVM that is not warmed up yet.
   */
  static double jitSeconds(long pid) {
    double total = 0;
    try (Stream<Path> threads = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path t : (Iterable<Path>) threads::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            total += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
          }
        } catch (IOException | RuntimeException gone) {
          // the thread ended while we listed
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return total;
  }
}
