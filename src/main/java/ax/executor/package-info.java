/**
 * The Java executor SDK: run ax tasks in your own process.
 *
 * <p>{@link ax.executor.AxExecutor} is the entry point: build it with servers, a token and one
 * {@link ax.executor.TaskHandler} per processor name, {@code start()} it, and {@code drain()} it on the
 * way out. The wire contract it implements is the "Executor protocol" section of README.md.
 *
 * <p>Layout, one job per class:
 * <ul>
 *   <li>wire: {@link ax.executor.FrameCodec} (framing), {@link ax.executor.BridgeConnection} (one socket,
 *       requests and answers), {@link ax.executor.SessionKeeper} (register, heartbeat, reconnect with
 *       {@link ax.executor.Backoff} over the {@link ax.executor.ServerAddress} list);</li>
 *   <li>work: {@link ax.executor.Dispatcher} (accept / reject / dedupe), {@link ax.executor.Admission}
 *       (threads + one shared buffer), {@link ax.executor.WorkerPools} (high / default / slow),
 *       {@link ax.executor.DedupeWindow}, {@link ax.executor.EpochFence};</li>
 *   <li>results: {@link ax.executor.ResultBatcher} (batches, kept until answered).</li>
 * </ul>
 * The pure parts (framing aside) have no Vert.x dependency beyond {@code JsonObject} and are unit-tested
 * without I/O.
 */
package ax.executor;
