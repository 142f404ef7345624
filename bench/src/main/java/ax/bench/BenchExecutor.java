package ax.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One executor process as users run it, {@code java -Xmx256m -jar ax.jar executor --processors noop}, connected
 * to the scheduler's bridge with a token from {@code ax.jar executor-token}. Its record file gets one line per
 * execution started: {@code task_id attempt shard_index executor_id started_at_us}.
 */
public record BenchExecutor(String id, Process process, Path record, Path log) {

  /**
   * Starts it and waits until it says it registered (60 s at most).
   *
   * @param buffer the SDK's bounded buffer of acked tasks ({@code --buffer}; its default is 256)
   * @param jfrDir where it writes a JFR profile, or null for none
   */
  public static BenchExecutor start(Path jar, ExecutorBridge bridge, String id, int buffer, Path jfrDir)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder tokenPb = new ProcessBuilder(java, "-jar", jar.toString(), "executor-token", "--executor-id", id);
    tokenPb.environment().put("AX_EXECUTOR_JWT_SECRET", bridge.jwtSecret());
    Process tp = tokenPb.start();
    String out = new String(tp.getInputStream().readAllBytes()).trim();
    if (tp.waitFor() != 0) {
      throw new IllegalStateException("executor-token failed: " + new String(tp.getErrorStream().readAllBytes()));
    }
    String[] lines = out.split("\n");
    String token = lines[lines.length - 1].trim();
    Path record = Files.createTempFile("ax-bench-" + id, ".rec");
    Path log = Files.createTempFile("ax-bench-" + id, ".log");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m"));
    if (jfrDir != null) {
      Files.createDirectories(jfrDir);
      cmd.add("-XX:StartFlightRecording=filename=" + jfrDir.resolve(id + ".jfr") + ",settings=profile,dumponexit=true");
    }
    cmd.addAll(List.of("-jar", jar.toString(), "executor",
        "--servers", "127.0.0.1:" + bridge.port(), "--token", token, "--processors", "noop", "--executor-id", id,
        "--record", record.toString(), "--buffer", Integer.toString(buffer)));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    BenchExecutor e = new BenchExecutor(id, pb.start(), record, log);
    long deadline = System.currentTimeMillis() + 60_000;
    while (!Files.readString(log).contains("registered")) {
      if (!e.process().isAlive() || System.currentTimeMillis() > deadline) {
        e.stop();
        throw new IllegalStateException("executor " + id + " did not register:\n" + Files.readString(log));
      }
      Thread.sleep(100);
    }
    return e;
  }

  /** CPU seconds the process used so far. */
  public double cpuSeconds() {
    return ServerProcess.cpuSeconds(process.pid());
  }

  /** SIGTERM (the executor drains), then SIGKILL after 15 s. */
  public void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
