/**
 * The Java executor SDK: run ax tasks in your own process.
 *
 * <p>{@link ax.executor.AxExecutor} is the entry point: build it with servers, a token and one
 * {@link ax.executor.TaskHandler} per processor name, {@code start()} it, and {@code drain()} it on the
 * way out. The public types are {@code AxExecutor}, {@code TaskHandler}, {@code TaskContext},
 * {@code Pool}, {@code PoolSizes}, {@code ServerAddress}, {@code Backoff}, {@code ExecutorListener},
 * {@code ExecutionRecorder} / {@code FileExecutionRecorder}, {@code ExecutorSummary} and
 * {@code ExecutorStats}; everything else is package-private and may change. The wire contract it
 * implements is docs/executor-protocol.md, as code in {@link ax.protocol}.
 *
 * <p>Layout, one job per class:
 * <ul>
 *   <li>wire: {@code FrameCodec} (framing), {@code BridgeConnection} (one socket, requests and answers),
 *       {@code SessionKeeper} (register, heartbeat, reconnect with {@link ax.executor.Backoff} over the
 *       {@link ax.executor.ServerAddress} list);</li>
 *   <li>work: {@code Dispatcher} (accept / reject / dedupe), {@code Admission} (threads + one shared
 *       buffer), {@code WorkerPools} (high / default / slow), {@code DedupeWindow}, {@code EpochFence};</li>
 *   <li>results: {@code ResultBatcher} (batches, kept until answered).</li>
 * </ul>
 * The artifact depends on vertx-core only.
 */
package ax.executor;
