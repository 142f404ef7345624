package ax.api;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Whole numbers from decoded JSON, range-checked exactly. JSON numbers beyond a long arrive as
 * {@link BigInteger} (or {@link BigDecimal}), and {@code Number.longValue()} would wrap them silently —
 * 2^64 + 5 becoming 5 — so the range is checked on the exact value first.
 */
final class WholeNumbers {
  private WholeNumbers() {
  }

  /** The value when it is a whole number in {@code [min, max]}, else null. */
  static Long within(Object value, long min, long max) {
    BigDecimal exact;
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      exact = BigDecimal.valueOf(((Number) value).longValue());
    } else if (value instanceof BigInteger b) {
      exact = new BigDecimal(b);
    } else if (value instanceof BigDecimal d) {
      exact = d;
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (!Double.isFinite(d)) {
        return null;
      }
      exact = BigDecimal.valueOf(d);
    } else {
      return null;
    }
    if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
      return null; // a fraction
    }
    if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
      return null;
    }
    return exact.longValueExact();
  }
}
