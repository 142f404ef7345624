package ax.store;

import io.vertx.core.VertxException;
import io.vertx.pgclient.PgException;

/**
 * What a failed store call means, for callers outside {@code ax.store} that must react differently to
 * "the database is not there right now" and "the database refuses this for good" — without knowing the
 * driver's exception types or SQLSTATE codes.
 */
public final class StoreErrors {
  private StoreErrors() {
  }

  /**
   * The database is unreachable, restarting or out of connections (SQLSTATE classes 08, 57P, 53300, or
   * a connection that failed or closed — PostgreSQL crashing mid-statement leaves a
   * {@link io.vertx.sqlclient.ClosedConnectionException}): the same call may work later. A statement in
   * flight when the connection went may or may not have committed.
   */
  public static boolean isUnavailable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof PgException pg) {
        String state = pg.getSqlState();
        return state != null && (state.startsWith("08") || state.startsWith("57P") || state.equals("53300"));
      }
      // A crash resets the connection or closes it: SocketException and ConnectException, a channel
      // closed, and also a plain IOException ("Connection reset by peer" while a new connection sends its
      // startup message to a PostgreSQL that is going down; DatabaseStopIT met it once).
      if (c instanceof java.io.IOException
          || c instanceof io.vertx.sqlclient.ClosedConnectionException
          || c instanceof VertxException
          && String.valueOf(c.getMessage()).toLowerCase().contains("closed")) {
        return true;
      }
      if (c instanceof io.vertx.core.http.ConnectionPoolTooBusyException
          || c.getClass().getName().contains("NoStackTraceTimeoutException")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Worth retrying as it is: unavailable (above), or the statement lost a conflict (serialization
   * failure, deadlock: class 40), ran out of resources (53) or was cancelled by the server (57, 55).
   * Anything else the database answered — a constraint, bad data — fails the same way again.
   */
  public static boolean isTransient(Throwable t) {
    if (t instanceof PgException pg) {
      String state = pg.getSqlState() == null ? "" : pg.getSqlState();
      return state.startsWith("08") || state.startsWith("53") || state.startsWith("57") || state.startsWith("40")
          || state.startsWith("55");
    }
    return true; // connection closed, refused, timed out: not the statement's fault
  }

  /** A row broke a table's invariant (SQLSTATE class 23: check, unique, not-null, foreign key). */
  public static boolean isConstraintViolation(Throwable t) {
    return t instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("23");
  }

  /**
   * The database refuses the values themselves: an invariant (class 23) or data it cannot hold (class 22:
   * a character it cannot store, a number or date out of its range). Sending the same values again fails
   * the same way; sending the others without them succeeds.
   */
  public static boolean isRefusedValue(Throwable t) {
    return t instanceof PgException pg && pg.getSqlState() != null
        && (pg.getSqlState().startsWith("23") || pg.getSqlState().startsWith("22"));
  }

  /** The database's own words for a refusal, without the driver's decoration. */
  public static String message(Throwable t) {
    return t instanceof PgException pg && pg.getErrorMessage() != null ? pg.getErrorMessage() : String.valueOf(t.getMessage());
  }
}
