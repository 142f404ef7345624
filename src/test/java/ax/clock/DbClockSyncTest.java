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
  void theOffsetIsTheWallClockMinusTheDatabaseClockEitherWayLessWhatTheRoundTripLeavesOpen() {
    // a 10 ms round trip leaves ± 5 ms open: 75 ms from the middle, at least 70 ms for sure
    assertEquals(70, DbClockSync.offset(1_000, 1_010, 930));
    assertEquals(-70, DbClockSync.offset(1_000, 1_010, 1_080));
  }

  @Test
  void aLoadedRoundTripShowsNoSkewItCannotProve() {
    // 400 ms round trip; the database read near its start: from the middle that looks like 150 ms of skew,
    // but the clocks may well agree (seen in CI, where it fired AxClockOffset on one machine)
    assertEquals(0, DbClockSync.offset(1_000, 1_400, 1_050));
    // a clock really 30 s ahead still shows about 30 s
    assertEquals(30_000, DbClockSync.offset(31_000, 31_400, 1_000));
  }

  @Test
  void theReadingWithTheShortestRoundTripAnchors() {
    DbClockSync.Reading cold = new DbClockSync.Reading(1_000, 0, 120_000_000, 0, 120);
    DbClockSync.Reading warm = new DbClockSync.Reading(1_130, 128_000_000, 129_000_000, 128, 129);
    DbClockSync.Reading middling = new DbClockSync.Reading(1_140, 135_000_000, 140_000_000, 135, 140);
    assertEquals(warm, DbClockSync.tightest(java.util.List.of(cold, warm, middling)));
    assertEquals(cold, DbClockSync.tightest(java.util.List.of(cold)));
  }
}
