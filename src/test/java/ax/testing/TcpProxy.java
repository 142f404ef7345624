package ax.testing;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay between ax and its PostgreSQL that a test can cut: {@link #cut()} drops every open
 * connection and refuses new ones, {@link #restore()} lets them through again — what the node sees when
 * the database stops and comes back (connections reset, connects refused), without stopping the
 * machine's PostgreSQL that other tests share.
 */
public final class TcpProxy implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetServer server;
  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  public TcpProxy(String targetHost, int targetPort) {
    var client = vertx.createNetClient();
    server = vertx.createNetServer().connectHandler(in -> {
      if (cut) {
        in.close();
        return;
      }
      in.pause();
      client.connect(targetPort, targetHost).onComplete(ar -> {
        if (ar.failed() || cut) {
          in.close();
          if (ar.succeeded()) {
            ar.result().close();
          }
          return;
        }
        NetSocket out = ar.result();
        open.add(in);
        open.add(out);
        in.closeHandler(v -> {
          open.remove(in);
          out.close();
        });
        out.closeHandler(v -> {
          open.remove(out);
          in.close();
        });
        in.pipeTo(out);
        out.pipeTo(in);
        in.resume();
      });
    }).listen(0, "127.0.0.1").await();
  }

  public int port() {
    return server.actualPort();
  }

  /** The database "stops": every connection drops, new ones are refused. */
  public void cut() {
    cut = true;
    open.forEach(NetSocket::close);
  }

  public void restore() {
    cut = false;
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
