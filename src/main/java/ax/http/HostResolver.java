package ax.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.net.InetAddress;
import java.util.List;

/**
 * Resolves callback hosts off the event loop and caches answers briefly, so a burst of tasks to one
 * host costs one lookup. The caller checks every returned address and connects to one of them — never
 * to a second, unchecked resolution (DNS rebinding).
 */
public final class HostResolver {
  private static final long TTL_MS = 30_000;

  private record Entry(List<InetAddress> addresses, long expiresAtNanos) {
  }

  private final Vertx vertx;
  private final BoundedMemo<String, Entry> cache = new BoundedMemo<>(10_000);

  public HostResolver(Vertx vertx) {
    this.vertx = vertx;
  }

  public Future<List<InetAddress>> resolve(String host) {
    Entry e = cache.get(host);
    long now = System.nanoTime();
    if (e != null && e.expiresAtNanos() - now > 0) {
      return Future.succeededFuture(e.addresses());
    }
    return vertx.executeBlocking(() -> List.of(InetAddress.getAllByName(host)), false).map(addresses -> {
      cache.put(host, new Entry(addresses, System.nanoTime() + TTL_MS * 1_000_000L));
      return addresses;
    });
  }
}
