package ax.api;

/**
 * Strict UTF-8 (RFC 3629), which the JSON parser is not: it accepts overlong forms ({@code C1 BF} for
 * U+007F, {@code E0 80 AF} for '/') and surrogates written as two 3-byte sequences (CESU-8), and
 * silently turns them into other characters — so the server could act on text the client never sent,
 * and a filter matching the bytes would see something else than the code that runs.
 */
final class Utf8 {
  private Utf8() {
  }

  /** Index of the first byte that is not part of well-formed UTF-8, or -1 when all of it is. */
  static int firstInvalid(byte[] b) {
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
        continue;
      }
      int need;
      int min;
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        min = 0x80;
      } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        min = 0x800;
      } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        min = 0x10000;
      } else {
        return i; // a continuation byte first, C0/C1 (always overlong), or F5..FF
      }
      if (i + need >= b.length) {
        return i; // truncated
      }
      int cp = c & (0x3F >> need);
      for (int k = 1; k <= need; k++) {
        int cont = b[i + k] & 0xFF;
        if ((cont & 0xC0) != 0x80) {
          return i;
        }
        cp = (cp << 6) | (cont & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return i; // overlong, beyond Unicode, or a surrogate
      }
      i += need + 1;
    }
    return -1;
  }
}
