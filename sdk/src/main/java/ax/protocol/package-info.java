/**
 * The executor protocol (docs/executor-protocol.md) as code, shared by the scheduler and the Java SDK:
 * the event-bus addresses and headers ({@link ax.protocol.ExecutorAddresses}), the naming rules
 * ({@link ax.protocol.Names}), the pool rule ({@link ax.protocol.PoolRule}), and one record per message
 * body with its JSON codec. Reading a message validates it: executors and schedulers may be written in
 * any language, so whatever arrives is checked here, and a bad message becomes a
 * {@link ax.protocol.ProtocolException} whose text is sent back to the peer.
 *
 * <p>Depends on vertx-core only (for {@code JsonObject}); imports nothing of the scheduler.
 */
package ax.protocol;
