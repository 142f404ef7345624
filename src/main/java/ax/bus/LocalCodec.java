package ax.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Passes objects between verticles of one JVM by reference: no JSON round trip on the hot path.
 * Only immutable messages are sent this way. Sending one to another node is a bug, so the wire
 * methods throw.
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final Class<T> type;

  private LocalCodec(Class<T> type) {
    this.type = type;
  }

  /** Registers the codecs of every local message type; call once per Vertx instance. */
  public static void registerAll(Vertx vertx) {
    register(vertx, TaskBatch.class);
    register(vertx, ax.leader.LeaderTerm.class);
    register(vertx, ReadyBatch.class);
  }

  private static <T> void register(Vertx vertx, Class<T> type) {
    vertx.eventBus().registerDefaultCodec(type, new LocalCodec<>(type));
  }

  public static DeliveryOptions localOnly() {
    return new DeliveryOptions().setLocalOnly(true);
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(type.getSimpleName() + " is a local-only message");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(type.getSimpleName() + " is a local-only message");
  }

  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return "ax.local." + type.getSimpleName();
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
