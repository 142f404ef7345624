package ax.delivery;

/**
 * One outcome an executor reported, already checked against the protocol: ids as numbers, the result as
 * JSON text within the size limit (a larger one arrives here as a failure).
 */
public record ReportedOutcome(long taskId, int attempt, boolean success, String resultJson, String error) {
}
