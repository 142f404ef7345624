package ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** User+system CPU seconds of processes from /proc (Linux; USER_HZ 100), to show where a run's time went. */
final class ProcCpu {
  private ProcCpu() {
  }

  static double ofPid(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** All processes whose command name is {@code comm} (e.g. every PostgreSQL backend). */
  static double ofCommand(String comm) {
    double total = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          if (Files.readString(p.resolve("comm")).trim().equals(comm)) {
            total += ofPid(Long.parseLong(name));
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
}
