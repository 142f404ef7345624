package ax.bench;

import java.io.IOException;

/**
 * The bridge a scheduler under test opens for executor processes: a fresh JWT secret (the executors' tokens
 * are minted with it by {@code ax.jar executor-token}) and a free port on 127.0.0.1. Scenarios that start
 * executors ({@code executors}, compare's {@code ax-executors}) give it to the server as AX_* defaults and
 * to each {@link BenchExecutor}.
 */
public record ExecutorBridge(String jwtSecret, int port) {
  public static ExecutorBridge pick() throws IOException {
    return new ExecutorBridge(Signer.newNonce() + Signer.newNonce() + Signer.newNonce(), ServerProcess.freePort());
  }

  /** A copy of {@code o} whose server opens this bridge (unless the command line set those variables). */
  public Options onto(Options o) {
    return o.withDefaultEnv("AX_EXECUTOR_JWT_SECRET", jwtSecret)
        .withDefaultEnv("AX_BRIDGE_PORT", Integer.toString(port))
        .withDefaultEnv("AX_BRIDGE_HOST", "127.0.0.1");
  }
}
