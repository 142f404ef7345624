package ax.api;

import ax.store.TaskStore;
import ax.task.TaskRecord;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;

/**
 * The opaque {@code cursor} of {@code listTasks}: the position of a page's last task in the list's order
 * ({@code created_at} desc, then {@code task_id} desc), so the next page starts right after it whatever
 * was created or changed meanwhile.
 *
 * <p>Wire form: base64url (no padding) of 17 bytes — a format version (1), {@code created_at} in epoch
 * microseconds (PostgreSQL's precision, so no two positions collapse), and {@code task_id}. Clients must
 * treat it as opaque; the version byte lets a later form be told apart. A cursor is not signed: it only
 * bounds a query that is scoped to the caller's tenant anyway, so a forged one shows nothing new.
 */
record ListCursor(long createdAtMicros, long taskId) {
  private static final byte VERSION = 1;
  private static final int LENGTH = 17;

  static ListCursor after(TaskRecord last) {
    return at(last.createdAt(), last.taskId());
  }

  /** The position of a row created at {@code createdAt} with this id (a task's or a schedule's). */
  static ListCursor at(OffsetDateTime createdAt, long id) {
    return new ListCursor(Math.addExact(Math.multiplyExact(createdAt.toEpochSecond(), 1_000_000L),
        createdAt.getNano() / 1_000), id);
  }

  String encode() {
    byte[] bytes = ByteBuffer.allocate(LENGTH).put(VERSION).putLong(createdAtMicros).putLong(taskId).array();
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** @throws InvalidRequest {@code validation_failed} for anything this server did not issue */
  static ListCursor decode(String text) throws InvalidRequest {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      bytes = new byte[0];
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (bytes.length != LENGTH || b.get() != VERSION) {
      throw invalid();
    }
    ListCursor c = new ListCursor(b.getLong(), b.getLong());
    if (c.taskId <= 0) {
      throw invalid();
    }
    return c;
  }

  TaskStore.ListPosition position() {
    Instant at = Instant.ofEpochSecond(Math.floorDiv(createdAtMicros, 1_000_000L),
        Math.floorMod(createdAtMicros, 1_000_000L) * 1_000L);
    return new TaskStore.ListPosition(OffsetDateTime.ofInstant(at, ZoneOffset.UTC), taskId);
  }

  private static InvalidRequest invalid() {
    return InvalidRequest.field("cursor", "not a cursor this server issued; pass next_cursor of the previous page unchanged");
  }
}
