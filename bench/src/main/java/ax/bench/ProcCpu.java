package ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** CPU seconds of a family of processes (e.g. every PostgreSQL backend), to show where a run's time went. */
final class ProcCpu {
  private ProcCpu() {
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
}
