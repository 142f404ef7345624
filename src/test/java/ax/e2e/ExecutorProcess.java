package ax.e2e;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An executor process as a team would run one: the Java SDK's demo command
 * ({@code java -jar ax.jar executor …}) or the Python example. Each records every execution it started
 * in its own file ({@code --record}), so a test can prove across processes that no task ran twice.
 */
final class ExecutorProcess implements AutoCloseable {
  final String executorId;
  final Path record;
  final Path log;
  private final Process process;

  private ExecutorProcess(String executorId, Process process, Path record, Path log) {
    this.executorId = executorId;
    this.process = process;
    this.record = record;
    this.log = log;
  }

  /** The Java SDK demo executor. */
  static ExecutorProcess java(String executorId, String token, String servers, String processors, String... extra)
      throws Exception {
    String jar = System.getProperty("ax.jar", "target/ax.jar");
    List<String> cmd = new ArrayList<>(List.of(AxProcess.javaBin(), "-Xmx256m", "-jar", jar, "executor",
        "--servers", servers, "--token", token, "--processors", processors, "--executor-id", executorId));
    cmd.addAll(List.of(extra));
    return start(executorId, cmd);
  }

  /** The standard-library Python example executor. */
  static ExecutorProcess python(String executorId, String token, String servers, String processors) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("python3", "-u", "examples/python-executor/ax_executor.py",
        "--servers", servers, "--token", token, "--processors", processors, "--executor-id", executorId));
    return start(executorId, cmd);
  }

  /**
   * The example executor of examples/java-executor, built against the SDK artifact alone, configured from
   * the environment as its README says. It records nothing: the tests read outcomes from the scheduler.
   */
  static ExecutorProcess javaExample(String executorId, String token, String servers) throws Exception {
    String jar = System.getProperty("ax.example.jar", "examples/java-executor/target/ax-java-executor-example.jar");
    if (!new File(jar).isFile()) {
      throw new IllegalStateException(jar + " is missing: build from the repository root (mvn -B verify)");
    }
    List<String> cmd = new ArrayList<>(List.of(AxProcess.javaBin(), "-Xmx128m", "-jar", jar));
    return start(executorId, cmd, Map.of("AX_SERVERS", servers, "AX_EXECUTOR_TOKEN", token), false);
  }

  private static ExecutorProcess start(String executorId, List<String> cmd) throws Exception {
    return start(executorId, cmd, Map.of(), true);
  }

  private static ExecutorProcess start(String executorId, List<String> cmd, Map<String, String> env, boolean records)
      throws Exception {
    Path record = Files.createTempFile("ax-exec-" + executorId + "-", ".rec");
    Path log = Files.createTempFile("ax-exec-" + executorId + "-", ".log");
    if (records) {
      cmd.addAll(List.of("--record", record.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AX_"));
    pb.environment().putAll(env);
    ExecutorProcess p = new ExecutorProcess(executorId, pb.start(), record, log);
    p.awaitOutput("registered", Duration.ofSeconds(60));
    return p;
  }

  /** Waits until the log contains {@code text} (e.g. "registered" after a reconnect). */
  void awaitOutput(String text, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output().contains(text)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("executor " + executorId + " exited with " + process.exitValue() + ":\n"
            + output());
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("executor " + executorId + " never printed '" + text + "':\n" + output());
  }

  /** Lines of the record file: {@code task_id attempt shard_index executor_id started_at_us}. */
  List<String[]> executions() throws IOException {
    List<String[]> out = new ArrayList<>();
    for (String line : Files.readAllLines(record)) {
      if (!line.isBlank()) {
        out.add(line.trim().split("\\s+"));
      }
    }
    return out;
  }

  /** Executions per task id. */
  Map<String, Integer> countsByTask() throws IOException {
    Map<String, Integer> out = new HashMap<>();
    for (String[] e : executions()) {
      out.merge(e[0], 1, Integer::sum);
    }
    return out;
  }

  /**
   * Waits until this executor has started {@code n} distinct tasks. Tests wait for this rather than for
   * RUNNING rows: RUNNING is informative and its write may skip a row (ExecutionStore.ACK).
   */
  void awaitStarted(int n, Duration timeout) throws Exception {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    while (countsByTask().size() < n) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(executorId + " started " + countsByTask().size() + " tasks, expected " + n
            + " within " + timeout + "\n--- executor log ---\n" + output());
      }
      Thread.sleep(50);
    }
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  void signal(String name) throws Exception {
    Signals.send(process, name);
  }

  void killHard() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  int stopGracefully(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor();
    }
    new File(log.toString()).deleteOnExit();
  }
}
