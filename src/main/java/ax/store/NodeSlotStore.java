package ax.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Hands out the 10-bit node part of task ids. A slot is a lease: a node holds one while it renews it,
 * so two live nodes never generate ids with the same node part.
 */
public final class NodeSlotStore {

  private static final String ACQUIRE = """
      INSERT INTO node_slots (slot, holder, expires_at)
      SELECT s, $1, now() + $2 * interval '1 millisecond'
        FROM generate_series(0, 1023) AS s
       WHERE NOT EXISTS (SELECT 1 FROM node_slots n WHERE n.slot = s AND n.expires_at >= now())
       ORDER BY s
       LIMIT 1
      ON CONFLICT (slot) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE node_slots.expires_at < now()
      RETURNING slot""";

  private static final String RENEW = """
      UPDATE node_slots SET expires_at = now() + $3 * interval '1 millisecond'
       WHERE slot = $1 AND holder = $2 AND expires_at >= now()""";

  private static final String RELEASE = "DELETE FROM node_slots WHERE slot = $1 AND holder = $2";

  private static final String LIVE = """
      SELECT slot, holder, expires_at FROM node_slots WHERE expires_at >= now() ORDER BY holder""";

  private final Pool pool;

  public NodeSlotStore(Pool pool) {
    this.pool = pool;
  }

  /** A free slot now held by {@code holder}; empty when another node won the race (try again). */
  public Future<Optional<Integer>> tryAcquire(String holder, long ttlMs) {
    return pool.preparedQuery(ACQUIRE).execute(Tuple.of(holder, ttlMs)).map(rows ->
        rows.rowCount() == 1 ? Optional.of(rows.iterator().next().getInteger("slot")) : Optional.empty());
  }

  public Future<Boolean> renew(int slot, String holder, long ttlMs) {
    return pool.preparedQuery(RENEW).execute(Tuple.of(slot, holder, ttlMs)).map(rows -> rows.rowCount() == 1);
  }

  /** A slot a node holds now: the node's process-unique holder name and when its slot lapses unless renewed. */
  public record Live(int slot, String holder, OffsetDateTime expiresAt) {
  }

  /** The nodes alive now (holding an unexpired slot), by holder name; at most 1024 rows. */
  public Future<List<Live>> live() {
    return pool.preparedQuery(LIVE).execute().map(rows -> {
      List<Live> out = new ArrayList<>(rows.rowCount());
      rows.forEach(r -> out.add(new Live(r.getInteger("slot"), r.getString("holder"), r.getOffsetDateTime("expires_at"))));
      return out;
    });
  }

  public Future<Void> release(int slot, String holder) {
    return pool.preparedQuery(RELEASE).execute(Tuple.of(slot, holder)).mapEmpty();
  }
}
