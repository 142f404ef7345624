package ax.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DbClockSyncTest {
  @Test
  void aSlowRoundTripIsNotTakenForClockSkew() {
    // sent at 1 000, answered at 1 060, the database read 1 030: the clocks agree
    assertEquals(0, DbClockSync.offset(1_000, 1_060, 1_030));
  }

  @Test
  void theOffsetIsTheWallClockMinusTheDatabaseClockEitherWay() {
    assertEquals(75, DbClockSync.offset(1_000, 1_010, 930));
    assertEquals(-75, DbClockSync.offset(1_000, 1_010, 1_080));
  }
}
