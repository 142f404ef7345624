package ax.e2e;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The environment that moves a process's wall clock with libfaketime (Debian package {@code faketime}):
 * {@code LD_PRELOAD} of the plain {@code libfaketime.so.1} (the MT variant is not needed: the offset is
 * relative, not a frozen time). Only the wall clock moves: {@code DONT_FAKE_MONOTONIC=1} leaves
 * {@code CLOCK_MONOTONIC} — {@code System.nanoTime}, Vert.x and Netty timers — real, as an NTP step would.
 *
 * <p>Checked on this machine with a JVM printing its clocks: {@code FAKETIME_FORCE_MONOTONIC_FIX=0} on its
 * own makes the JVM hang at start; with {@code DONT_FAKE_MONOTONIC=1} beside it the JVM starts in normal
 * time and shows the offset on {@code currentTimeMillis}/{@code Instant.now} only, so both are set.
 */
final class FakeTime {
  static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

  private FakeTime() {
  }

  /** Skips the calling test, saying why, when libfaketime is missing (.ci/run installs it). */
  static void assumeInstalled() {
    Assumptions.assumeTrue(Files.isReadable(LIBRARY),
        LIBRARY + " is missing: install the Debian package faketime (apt-get install -y faketime) to inject clock faults");
  }

  /** A wall clock {@code offset} away from true time for the process's whole life: "+30s", "-1h". */
  static Map<String, String> offset(String offset) {
    return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME", offset, "FAKETIME_FORCE_MONOTONIC_FIX", "0",
        "DONT_FAKE_MONOTONIC", "1");
  }

  /**
   * A wall clock whose offset a test changes while the process runs ({@link #jump}): libfaketime reads it
   * from a file, at most {@value #REREAD_S} s old. Delete the file with {@link #close}.
   */
  static final class Jumpable implements AutoCloseable {
    static final int REREAD_S = 1;
    private final Path file;

    Jumpable(String initialOffset) throws IOException {
      file = Files.createTempFile("ax-faketime-", ".rc");
      jump(initialOffset);
    }

    Map<String, String> env() {
      return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME_TIMESTAMP_FILE", file.toString(),
          "FAKETIME_CACHE_DURATION", Integer.toString(REREAD_S), "FAKETIME_FORCE_MONOTONIC_FIX", "0",
          "DONT_FAKE_MONOTONIC", "1");
    }

    /** Moves the clock to {@code offset} from true time ("+1h", "-1h", "+0s"), within {@value #REREAD_S} s. */
    void jump(String offset) throws IOException {
      Path next = Files.createTempFile(file.getParent(), "ax-faketime-", ".tmp");
      Files.writeString(next, offset + "\n");
      Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public void close() throws IOException {
      Files.deleteIfExists(file);
    }
  }

  /** What a node's {@code ax_clock_offset_seconds} says its wall clock is off the database's, in seconds. */
  static double reportedOffsetSeconds(int port) throws Exception {
    return Health.metric(port, "ax_clock_offset_seconds", "");
  }
}
