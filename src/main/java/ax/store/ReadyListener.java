package ax.store;

import ax.wheel.ScheduledTask;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.logging.Logger;

/**
 * Listens for the tasks V10's triggers let go ({@link ReadyAnnouncements}) on a connection of its own.
 * A lost connection is re-established every second; so is a first one that fails. What is announced
 * while nobody listens is not lost: the tasks are in PostgreSQL and the recovery scan finds them.
 */
public final class ReadyListener {
  private static final Logger LOG = Logger.getLogger(ReadyListener.class.getName());

  private final PgListening listening;

  /** Where listeners connect: the node's database, wired in once (SQL types stay in the stores). */
  public record Connector(PgConnectOptions pg) {
    /**
     * @param ready   tasks let go (dependency met, overlap ended), as announced
     * @param skipped how many tasks a failed dependency SKIPPED
     */
    public ReadyListener open(Vertx vertx, Consumer<List<ScheduledTask>> ready, LongConsumer skipped) {
      return new ReadyListener(vertx, pg, ready, skipped);
    }
  }

  private ReadyListener(Vertx vertx, PgConnectOptions pg, Consumer<List<ScheduledTask>> ready, LongConsumer skipped) {
    listening = new PgListening(vertx, pg, "released tasks (the recovery scan covers the gap)");
    listening.channel(ReadyAnnouncements.READY_CHANNEL).handler(payload -> {
      try {
        ready.accept(ReadyAnnouncements.parse(payload));
      } catch (IllegalArgumentException e) {
        LOG.warning("ignored an announcement of released tasks: " + e.getMessage());
      }
    });
    listening.channel(ReadyAnnouncements.SKIPPED_CHANNEL)
        .handler(payload -> skipped.accept(ReadyAnnouncements.skippedCount(payload)));
  }

  /** Connects, and keeps trying every second until it does or {@link #stop()} is called. */
  public void start() {
    listening.start();
  }

  public Future<Void> stop() {
    return listening.stop();
  }
}
