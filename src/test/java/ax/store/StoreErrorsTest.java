package ax.store;

import io.vertx.pgclient.PgException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failures of the database mean "unavailable, answer 503" rather than "a bug, answer 500". */
class StoreErrorsTest {

  @Test
  void aConnectionResetWhileAConnectionStartsIsUnavailable() {
    // What DatabaseStopIT met once: the pg client's startup write to a PostgreSQL going down.
    assertTrue(StoreErrors.isUnavailable(new RuntimeException(new IOException("Connection reset by peer"))));
  }

  @Test
  void refusedAndClosedConnectionsAreUnavailable() {
    assertTrue(StoreErrors.isUnavailable(new ConnectException("Connection refused")));
    assertTrue(StoreErrors.isUnavailable(new ClosedChannelException()));
    assertTrue(StoreErrors.isUnavailable(new PgException("the database system is shutting down", "FATAL", "57P03",
        null)));
  }

  @Test
  void whatTheDatabaseRefusesIsNotUnavailability() {
    assertFalse(StoreErrors.isUnavailable(new PgException("duplicate key", "ERROR", "23505", null)));
    assertFalse(StoreErrors.isUnavailable(new IllegalStateException("a bug")));
  }
}
