package ax.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The TCP ports a process listens on, and the address of each, read from Linux's /proc. */
final class ListeningSockets {
  private ListeningSockets() {
  }

  /** Port → listening address ("127.0.0.1", "0.0.0.0", or an IPv6 address in /proc's hex). */
  static Map<Integer, String> of(long pid) throws IOException {
    Set<String> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds.toList()) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // the descriptor went away while we listed
        }
      }
    }
    Map<Integer, String> ports = new TreeMap<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table)).subList(1, Files.readAllLines(Path.of(table)).size())) {
        String[] f = line.trim().split("\\s+");
        if ("0A".equals(f[3]) && inodes.contains(f[9])) { // 0A = LISTEN
          String[] local = f[1].split(":");
          ports.put(Integer.parseInt(local[1], 16), address(local[0]));
        }
      }
    }
    return ports;
  }

  private static String address(String hex) {
    String v4 = hex.length() == 8 ? hex
        : hex.startsWith("0000000000000000FFFF0000") ? hex.substring(24)
        : hex.matches("0+") ? "00000000" : null;
    if (v4 == null) {
      return hex;
    }
    long a = Long.parseLong(v4, 16); // one 32-bit word, stored little-endian
    return (a & 0xFF) + "." + ((a >> 8) & 0xFF) + "." + ((a >> 16) & 0xFF) + "." + ((a >> 24) & 0xFF);
  }
}
