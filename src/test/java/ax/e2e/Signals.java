package ax.e2e;

/** POSIX signals for the fault tests: SIGSTOP/SIGCONT pause and resume a process without killing it. */
final class Signals {
  private Signals() {
  }

  static void send(Process process, String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
    }
  }
}
