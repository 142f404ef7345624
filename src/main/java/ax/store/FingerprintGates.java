package ax.store;

import java.util.UUID;

/**
 * The gate (V17's {@code fingerprint_gates}) a fingerprint's inserts lock: its first 16 bits, as SQL's
 * {@code ax_fingerprint_gate} computes it (the batch insert splits its tasks by the gates it could lock).
 */
final class FingerprintGates {
  static final int COUNT = 65_536;

  private FingerprintGates() {
  }

  static int of(UUID fingerprint) {
    return (int) (fingerprint.getMostSignificantBits() >>> 48);
  }
}
