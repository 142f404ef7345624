package ax.json;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CanonicalJsonTest {

  @Test
  void membersAreSortedAtEveryLevelAndWhitespaceIsGone() {
    JsonObject o = new JsonObject("{ \"b\" : { \"y\" : 1, \"x\" : 2 }, \"a\" : [ { \"d\": 1, \"c\": 2 } ] }");
    assertEquals("{\"a\":[{\"c\":2,\"d\":1}],\"b\":{\"x\":2,\"y\":1}}", CanonicalJson.of(o));
  }

  /** RFC 8785 sorts by UTF-16 code units: "\u00e9" (é) after "z", an astral character before "\uffff". */
  @Test
  void memberOrderIsByUtf16CodeUnits() {
    JsonObject o = new JsonObject().put("é", 1).put("z", 2).put("\uffff", 3).put("😀", 4).put("Z", 5);
    assertEquals("{\"Z\":5,\"z\":2,\"é\":1,\"😀\":4,\"\uffff\":3}", CanonicalJson.of(o));
  }

  @Test
  void numbersAreWrittenByValue() {
    assertEquals("1", CanonicalJson.number(1));
    assertEquals("1", CanonicalJson.number(1L));
    assertEquals("1", CanonicalJson.number(new BigDecimal("1.000")));
    assertEquals("1", CanonicalJson.number(new BigDecimal("1E0")));
    assertEquals("1", CanonicalJson.number(new BigDecimal("10E-1")));
    assertEquals("1000", CanonicalJson.number(new BigDecimal("1E+3")));
    assertEquals("1", CanonicalJson.number(1.0d));
    assertEquals("12.5", CanonicalJson.number(12.50d));
    assertEquals("0", CanonicalJson.number(-0.0d));
    assertEquals("0", CanonicalJson.number(new BigDecimal("-0.00")));
    assertEquals("123456789012345678901234567890", CanonicalJson.number(new BigInteger("123456789012345678901234567890")));
    assertEquals("0.1", CanonicalJson.number(0.1d), "the shortest decimal of the double, not 0.1000000000000000055…");
    // every digit is kept: these are different payloads
    assertNotEquals(CanonicalJson.number(new BigDecimal("0.12345678901234567890")),
        CanonicalJson.number(new BigDecimal("0.12345678901234567891")));
  }

  @Test
  void stringsAreEscapedOneWay() {
    assertEquals("\"a\\\"b\\\\c\\n\\t\\u0001é/\"", CanonicalJson.of("a\"b\\c\n\t\u0001é/"));
  }

  @Test
  void scalarsArraysAndNull() {
    assertEquals("[true,false,null,\"x\",1.5]", CanonicalJson.of(new JsonArray().add(true).add(false).addNull()
        .add("x").add(1.5)));
    assertEquals("null", CanonicalJson.of(null));
    assertThrows(IllegalArgumentException.class, () -> CanonicalJson.of(Double.NaN));
  }
}
