package ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** CPU seconds of a family of processes (e.g. every PostgreSQL backend), to show where a run's time went. */
public final class ProcCpu {
  private ProcCpu() {
  }

  /**
   * All processes whose command name is {@code comm} (e.g. every PostgreSQL process), each with the CPU of its
   * children that ended and were reaped (/proc stat cutime + cstime): PostgreSQL's postmaster reaps every backend and
   * autovacuum worker, so one that exits between two readings still counts in the difference.
   */
  public static double ofCommand(String comm) {
    double total = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        if (!p.getFileName().toString().chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String stat = Files.readString(p.resolve("stat"));
          if (comm(stat).equals(comm)) {
            String[] f = fields(stat);
            total += (Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]))
                / 100.0;
          }
        } catch (IOException | RuntimeException gone) {
          // the process ended while we listed
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return total;
  }

  /** The command name of a /proc stat line (between the first '(' and the last ')'). */
  private static String comm(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }

  /**
   * The fields after "pid (comm) ": f[0] is the state, f[11]/f[12] utime/stime, f[13]/f[14] cutime/cstime of
   * reaped children, all in clock ticks (USER_HZ, 100 on Linux).
   */
  private static String[] fields(String stat) {
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
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
          String comm = comm(stat);
          if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            String[] f = fields(stat);
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
