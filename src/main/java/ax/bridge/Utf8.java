package ax.bridge;

/**
 * Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF, no truncated
 * sequences. The JSON tokenizer rejects most broken bytes but decodes overlong forms without a word, so
 * frames are checked here first: one meaning per byte sequence, whatever reads the text later.
 */
final class Utf8 {
  private Utf8() {
  }

  static boolean isValid(byte[] bytes) {
    int i = 0;
    int n = bytes.length;
    while (i < n) {
      int b = bytes[i] & 0xFF;
      if (b < 0x80) {
        i++;
        continue;
      }
      int extra;
      int min;
      if (b >= 0xC2 && b <= 0xDF) {
        extra = 1;
        min = 0x80;
      } else if (b >= 0xE0 && b <= 0xEF) {
        extra = 2;
        min = 0x800;
      } else if (b >= 0xF0 && b <= 0xF4) {
        extra = 3;
        min = 0x10000;
      } else {
        return false; // a continuation byte where a sequence should start, C0/C1 (always overlong), or F5+
      }
      if (i + extra >= n) { // truncated
        return false;
      }
      int cp = b & (0x3F >> extra);
      for (int k = 1; k <= extra; k++) {
        int c = bytes[i + k] & 0xFF;
        if ((c & 0xC0) != 0x80) {
          return false;
        }
        cp = (cp << 6) | (c & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return false;
      }
      i += extra + 1;
    }
    return true;
  }
}
