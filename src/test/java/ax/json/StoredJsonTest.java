package ax.json;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Results from targets and executors are stored as they came when jsonb can hold and give them back. */
class StoredJsonTest {

  @ParameterizedTest
  @ValueSource(strings = {"{\"ok\":true}", "[1,2.5,\"x\"]", "\"text\"", "42", "null", "{\"e\":\"😀\"}", "1e300"})
  void storableJsonIsKeptAsItIs(String json) {
    assertEquals(json, StoredJson.storable(json));
  }

  @Test
  void textThatIsNotJsonBecomesAJsonString() {
    assertEquals("\"OK\"", StoredJson.storable("OK"));
    assertEquals("\"{\\\"a\\\":\"", StoredJson.storable("{\"a\":"));
    assertEquals("\"1 2\"", StoredJson.storable("1 2"));
    assertNull(StoredJson.storable(null));
  }

  /** A target answering this once made the outcome write fail for every task in its batch. */
  @Test
  void aNulOrALoneSurrogateIsReplacedAndTheValueKeptAsAString() {
    assertEquals("\"{\\\"a\\\":\\\"x\\\\u0000\\\"}\"", StoredJson.storable("{\"a\":\"x\\u0000\"}"),
        "the escape is text, not a NUL: stored as written");
    assertEquals("\"x\uFFFDy\"", StoredJson.storable("x\u0000y"));
    assertEquals("\"\uFFFD\"", StoredJson.storable("\uD800"));
    assertFalse(StoredJson.isStorable("{\"a\":\"\\u0000\"}"));
    assertFalse(StoredJson.isStorable("[\"\\ud800\"]"));
  }

  @Test
  void nestingPastTheLimitOrANumberTooLongWrittenOutIsKeptAsAString() {
    String deep = "[".repeat(StoredJson.MAX_DEPTH + 1) + "]".repeat(StoredJson.MAX_DEPTH + 1);
    assertTrue(StoredJson.isStorable("[".repeat(StoredJson.MAX_DEPTH) + "]".repeat(StoredJson.MAX_DEPTH)));
    assertFalse(StoredJson.isStorable(deep));
    assertEquals('"' + deep + '"', StoredJson.storable(deep));
    assertFalse(StoredJson.isStorable("1e100000"));
    assertEquals("\"1e40018446744073709551621\"", StoredJson.storable("1e40018446744073709551621"));
  }

  @Test
  void writtenOutLengthCountsWhatPostgresPrints() {
    assertEquals(3, StoredJson.writtenOutLength(new BigDecimal("1e2")));      // 100
    assertEquals(6, StoredJson.writtenOutLength(new BigDecimal("0.0001")));   // 0.0001
    assertEquals(5, StoredJson.writtenOutLength(new BigDecimal("-1.25")));    // -1.25
    assertEquals(401, StoredJson.writtenOutLength(new BigDecimal("1e400")));
  }
}
