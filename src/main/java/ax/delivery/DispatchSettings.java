package ax.delivery;

/**
 * The executor dispatch's knobs, validated once.
 *
 * @param heartbeatMs        how often executors heartbeat; 3 missed → SUSPECT, 4 → OFFLINE
 * @param ackTimeoutMs       how long an executor has to ack a dispatch before its tasks go back to READY
 * @param readyQueueCap      READY tasks held in memory; the rest wait in PostgreSQL
 * @param maxBatch           tasks per dispatch message: large enough to amortise the round trip, small
 *                           enough to spread a burst over executors
 * @param maxDispatchesInFlight dispatch messages written or pushed but not yet answered
 * @param ackLingerMs        acks are written this long after they arrive, in one statement, and only for
 *                           tasks whose result has not come in meanwhile: a fast task goes
 *                           DISPATCHING → SUCCESS without a RUNNING write it would never need
 * @param topUpIntervalMs    how often READY tasks left in PostgreSQL are looked for
 * @param topUpBatch         how many at a time
 * @param heldScanLimit      tasks of an OFFLINE executor settled per pass
 * @param offlineRetryMs     how soon settling an OFFLINE executor's tasks is tried again after a failure
 * @param handOverGraceMs    how long past ack timeout + {@code timeout_ms} a task may stay handed to a live
 *                           executor that never answers for it before its room is given back (the task
 *                           itself is then the recovery scan's: it times out in PostgreSQL)
 * @param claimLeadMs        how far ahead of their trigger time tasks are claimed (AX_CLAIM_LEAD_MS): the
 *                           DISPATCHING write takes tasks due that soon, each is pushed at its trigger time
 */
public record DispatchSettings(long heartbeatMs, long ackTimeoutMs, int readyQueueCap, int maxBatch,
                               int maxDispatchesInFlight, long ackLingerMs, long topUpIntervalMs, int topUpBatch,
                               int heldScanLimit, long offlineRetryMs, long handOverGraceMs, long claimLeadMs) {
  public DispatchSettings {
    require(heartbeatMs >= 10, "heartbeatMs must be ≥ 10, was " + heartbeatMs);
    require(ackTimeoutMs >= 1, "ackTimeoutMs must be ≥ 1, was " + ackTimeoutMs);
    require(readyQueueCap >= 1, "readyQueueCap must be ≥ 1, was " + readyQueueCap);
    require(maxBatch >= 1, "maxBatch must be ≥ 1, was " + maxBatch);
    require(maxDispatchesInFlight >= 1, "maxDispatchesInFlight must be ≥ 1, was " + maxDispatchesInFlight);
    require(ackLingerMs >= 0, "ackLingerMs must be ≥ 0, was " + ackLingerMs);
    require(topUpIntervalMs >= 1, "topUpIntervalMs must be ≥ 1, was " + topUpIntervalMs);
    require(topUpBatch >= 1, "topUpBatch must be ≥ 1, was " + topUpBatch);
    require(heldScanLimit >= 1, "heldScanLimit must be ≥ 1, was " + heldScanLimit);
    require(offlineRetryMs >= 1, "offlineRetryMs must be ≥ 1, was " + offlineRetryMs);
    require(handOverGraceMs >= 0, "handOverGraceMs must be ≥ 0, was " + handOverGraceMs);
    require(claimLeadMs >= 0, "claimLeadMs must be ≥ 0, was " + claimLeadMs);
  }

  /** Production values around the configurable ones; nothing claimed ahead. */
  public static DispatchSettings of(long heartbeatMs, long ackTimeoutMs, int readyQueueCap) {
    return new DispatchSettings(heartbeatMs, ackTimeoutMs, readyQueueCap, 256, 16, 50, 1_000, 5_000, 100_000, 1_000,
        10_000, 0);
  }

  /** The same settings for tasks claimed {@code leadMs} ahead of their trigger time. */
  public DispatchSettings withClaimLeadMs(long leadMs) {
    return new DispatchSettings(heartbeatMs, ackTimeoutMs, readyQueueCap, maxBatch, maxDispatchesInFlight,
        ackLingerMs, topUpIntervalMs, topUpBatch, heldScanLimit, offlineRetryMs, handOverGraceMs, leadMs);
  }

  /** How often health and top-up are looked at: often enough for the heartbeat rules, at most once a second. */
  public long tickMs() {
    return Math.max(50, Math.min(heartbeatMs / 4, 1_000));
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
