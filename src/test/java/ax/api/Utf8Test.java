package ax.api;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Strict UTF-8: what the JSON parser would have silently turned into other characters is refused. */
class Utf8Test {

  @ParameterizedTest
  @ValueSource(strings = {"", "plain ascii", "é", "€", "😀", "\uFFFF", "\u0000", "mixed é€😀 text"})
  void wellFormedTextPasses(String text) {
    assertEquals(-1, Utf8.firstInvalid(text.getBytes(StandardCharsets.UTF_8)));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "c328",             // a lead byte followed by ASCII
      "ff", "fe", "f8888080", // bytes UTF-8 never uses
      "80",               // a continuation byte first
      "c080", "c1bf",     // overlong forms of NUL and U+007F
      "e080af",           // overlong '/'
      "f08282ac",         // overlong '€'
      "eda080",           // a surrogate (U+D800) written as a 3-byte sequence
      "eda0bdedb880",     // a surrogate pair written as two 3-byte sequences (CESU-8)
      "f4908080",         // beyond U+10FFFF
      "e282",             // truncated
      "f09f98"})          // truncated emoji
  void malformedSequencesAreFoundAtTheirFirstByte(String hex) {
    byte[] bad = HexFormat.of().parseHex(hex);
    byte[] body = new byte[bad.length + 2];
    body[0] = 'a';
    body[1] = 'b';
    System.arraycopy(bad, 0, body, 2, bad.length);
    assertEquals(2, Utf8.firstInvalid(body), hex);
  }
}
