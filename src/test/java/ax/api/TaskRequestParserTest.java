package ax.api;

import ax.http.CallbackUrlPolicy;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task request from its bytes to a {@link TaskRequestParser.Submission}, as the handlers see it
 * ({@link HttpJson#decode} then {@link TaskRequestParser#parse}). Each finding of issue 10 that input
 * alone could cause has its case here: what the database cannot hold is refused up front, by name.
 */
class TaskRequestParserTest {
  private static final long NOW = Instant.parse("2026-12-01T12:00:00Z").toEpochMilli();
  private static final String TARGET = "\"task_type\":\"p\",\"callback_url\":\"https://hooks.example.com/x\"";
  private final TaskRequestParser parser = new TaskRequestParser(new CallbackUrlPolicy(List.of("hooks.example.com")));

  private TaskRequestParser.Submission parse(String json) throws InvalidRequest {
    return parser.parse(HttpJson.decode(Buffer.buffer(json)), NOW);
  }

  private String refusal(String json) {
    InvalidRequest e = assertThrows(InvalidRequest.class, () -> parse(json), json);
    assertEquals(400, e.problem().status(), e.problem().detail());
    return e.problem().detail();
  }

  @Test
  void aPlainRequestParsesWithItsDefaults() throws Exception {
    TaskRequestParser.Submission s = parse("{" + TARGET + ",\"delay_ms\":5000,\"payload\":{\"user\":42}}");
    assertEquals(NOW + 5000, s.triggerTimeMs());
    assertEquals("{\"user\":42}", s.payloadJson());
  }

  /** Finding 1: PostgreSQL can store BC dates the client cannot read back; years past 9999 gave 500. */
  @ParameterizedTest
  @ValueSource(strings = {"-5000-01-01T00:00:00.000Z", "-4713-11-24T00:00:00.000Z", "+999999999-12-31T23:59:59.999Z",
      "0000-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "2025-11-29T12:00:00Z", "2036-12-31T00:00:00Z",
      "+10000-01-01T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-01T20:00:00", "tomorrow"})
  void aTriggerTimeOutsideAYearAgoToTenYearsAheadIsRefusedByName(String time) {
    assertTrue(refusal("{" + TARGET + ",\"trigger_time\":\"" + time + "\"}").startsWith("trigger_time: "));
  }

  @ParameterizedTest
  @ValueSource(strings = {"2025-12-01T12:00:00Z", "2026-12-01T20:00:00.000Z", "2036-11-25T00:00:00+08:00"})
  void aTriggerTimeWithinTheRangeIsKeptToTheMillisecond(String time) throws Exception {
    assertEquals(Instant.parse(time.replace("+08:00", "Z")).toEpochMilli() - (time.endsWith("+08:00") ? 8 * 3_600_000 : 0),
        parse("{" + TARGET + ",\"trigger_time\":\"" + time + "\"}").triggerTimeMs());
  }

  /** Finding 4: 2^64 + 5 is not 5. */
  @ParameterizedTest
  @ValueSource(strings = {"\"priority\":18446744073709551621", "\"max_retry\":-18446744073709551611",
      "\"timeout_ms\":18446744073709552616", "\"delay_ms\":18446744073709551616", "\"priority\":4294967301",
      "\"priority\":5.5", "\"priority\":1e400", "\"priority\":\"5\"", "\"shard_total\":-1", "\"delay_ms\":-1",
      "\"timeout_ms\":0", "\"max_retry\":11"})
  void anIntegerOutOfRangeIsRefusedNotWrapped(String field) {
    String name = field.substring(1, field.indexOf('"', 1));
    assertTrue(refusal("{" + TARGET + "," + field + "}").startsWith(name + ": "));
  }

  /** The fuzz (ApiFuzzIT): bodies were decoded through doubles, so 5.00000000000000000001 was a whole 5. */
  @ParameterizedTest
  @ValueSource(strings = {"\"priority\":5.00000000000000000001", "\"priority\":1e-400",
      "\"timeout_ms\":4.99999999999999999999", "\"delay_ms\":5.00000000000000000001"})
  void aNumberThatIsNotWholeIsRefusedHoweverCloseItIs(String field) {
    String name = field.substring(1, field.indexOf('"', 1));
    assertTrue(refusal("{" + TARGET + "," + field + "}").startsWith(name + ": "));
  }

  @Test
  void aPayloadKeepsEveryDigitAndIsStoredWrittenOut() throws Exception {
    // -0.0 is 0.0: a decimal (like PostgreSQL's numeric) has no negative zero
    assertEquals("[0.1000000000000000000001,1" + "0".repeat(400) + ",0.0]",
        parse("{" + TARGET + ",\"payload\":[0.1000000000000000000001,1e400,-0.0]}").payloadJson());
    assertTrue(refusal("{" + TARGET + ",\"payload\":[1e100000]}").startsWith("payload.0: a number 100001 characters"));
    // found by RequestParsingPropertiesTest in a CI run: an exponent beyond an int escaped as a 500
    assertTrue(refusal("{" + TARGET + ",\"payload\":1e40018446744073709551621}").startsWith("payload: a number whose"));
    assertTrue(refusal("{" + TARGET + ",\"priority\":1e40018446744073709551621}").startsWith("priority: a number whose"));
  }

  @Test
  void aNullPayloadIsAValueAndEveryOtherNullIsRefused() throws Exception {
    assertEquals("null", parse("{" + TARGET + ",\"payload\":null}").payloadJson());
    for (String member : new String[] {"priority", "biz_key", "trigger_time", "processor", "max_retry"}) {
      assertTrue(refusal("{" + TARGET + ",\"" + member + "\":null}").startsWith(member + ": must not be null"), member);
    }
  }

  /** Generated models that hold no list send depends_on: null (openapi.yaml declares it nullable for that). */
  @Test
  void aNullDependsOnIsNoDependencies() throws Exception {
    assertEquals(parse("{" + TARGET + "}"), parse("{" + TARGET + ",\"depends_on\":null}"));
    assertTrue(parse("{" + TARGET + ",\"depends_on\":null}").dependsOn().isEmpty());
  }

  @Test
  void dependsOnTakesTaskIdsAndBatchReferencesInTheOrderGiven() throws Exception {
    TaskRequestParser.DependsOn d = parse("{" + TARGET + ",\"depends_on\":[\"42\",\"#0\",\"7\",\"#12\"]}").dependsOn();
    assertArrayEquals(new long[] {42, 7}, d.taskIds());
    assertArrayEquals(new int[] {0, 12}, d.batchItems());
  }

  @Test
  void dependsOnRefusesAnEmptyListMoreThanFiftyRepeatsAndAnythingButIdsAndReferences() throws Exception {
    assertTrue(refusal("{" + TARGET + ",\"depends_on\":[]}").startsWith("depends_on: must be an array of 1..50"));
    StringBuilder fiftyOne = new StringBuilder();
    for (int i = 1; i <= 51; i++) {
      fiftyOne.append(i > 1 ? "," : "").append('"').append(i).append('"');
    }
    assertTrue(refusal("{" + TARGET + ",\"depends_on\":[" + fiftyOne + "]}").startsWith("depends_on: must be an array"));
    assertTrue(parse("{" + TARGET + ",\"depends_on\":[" + fiftyOne.substring(0, fiftyOne.lastIndexOf(",")) + "]}")
        .dependsOn().taskIds().length == 50);
    assertEquals("depends_on: \"7\" is listed twice", refusal("{" + TARGET + ",\"depends_on\":[\"7\",\"7\"]}"));
    assertEquals("depends_on: \"#1\" is listed twice", refusal("{" + TARGET + ",\"depends_on\":[\"#1\",\"#1\"]}"));
    for (String bad : new String[] {"[7]", "[\"-7\"]", "[\"x\"]", "[\"#\"]", "[\"#01\"]", "[\"#1000\"]",
        "[\"12345678901234567890\"]", "[null]", "{}", "\"7\""}) {
      assertTrue(refusal("{" + TARGET + ",\"depends_on\":" + bad + "}").startsWith("depends_on: "), bad);
    }
    assertEquals("depends_on: no task 9223372036854775808",
        refusal("{" + TARGET + ",\"depends_on\":[\"9223372036854775808\"]}"));
  }

  /** Deduplicated unless told otherwise; the fingerprint ignores how the payload is spelled. */
  @Test
  void dedupeIsOnByDefaultAndTheFingerprintIgnoresSpelling() throws Exception {
    TaskRequestParser.Submission a = parse("{" + TARGET + ",\"payload\":{\"b\":[1,2],\"a\":12.50}}");
    TaskRequestParser.Submission b = parse("{" + TARGET + ",\"payload\":{ \"a\": 1.25e1, \"b\": [1.0, 2] }}");
    assertEquals(a.toNewTask(1, "t1", "k", ax.task.TaskStatus.DELAYED).fingerprint(),
        b.toNewTask(2, "t1", "k", ax.task.TaskStatus.DELAYED).fingerprint());
    assertTrue(a.toNewTask(1, "t1", "k", ax.task.TaskStatus.DELAYED).fingerprint() != null);
    assertEquals(null, parse("{" + TARGET + ",\"dedupe\":false}").payloadDigest());
    assertTrue(parse("{" + TARGET + ",\"dedupe\":true}").payloadDigest() != null);
    assertTrue(refusal("{" + TARGET + ",\"dedupe\":\"no\"}").startsWith("dedupe: "));
    assertTrue(refusal("{" + TARGET + ",\"dedupe\":null}").startsWith("dedupe: "));
  }

  @Test
  void bizKeyIsCountedInCharactersNotUtf16Units() throws Exception {
    assertEquals("😀".repeat(128), parse("{" + TARGET + ",\"biz_key\":\"" + "😀".repeat(128) + "\"}").bizKey());
    assertTrue(refusal("{" + TARGET + ",\"biz_key\":\"" + "😀".repeat(129) + "\"}").startsWith("biz_key: "));
  }

  @Test
  void lowerCaseTAndZAreRfc3339Too() throws Exception {
    assertEquals(Instant.parse("2026-12-01T20:00:00Z").toEpochMilli(),
        parse("{" + TARGET + ",\"trigger_time\":\"2026-12-01t20:00:00.000z\"}").triggerTimeMs());
  }

  @Test
  void aBodyThatIsNotUtf8JsonTextIsRefusedWhole() {
    byte[] json = ("{" + TARGET + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bom = new byte[json.length + 3];
    bom[0] = (byte) 0xEF;
    bom[1] = (byte) 0xBB;
    bom[2] = (byte) 0xBF;
    System.arraycopy(json, 0, bom, 3, json.length);
    byte[] utf16 = ("{" + TARGET + "}").getBytes(java.nio.charset.StandardCharsets.UTF_16BE);
    for (byte[] body : new byte[][] {bom, utf16}) {
      InvalidRequest e = assertThrows(InvalidRequest.class, () -> HttpJson.decode(Buffer.buffer(body)));
      assertTrue(e.problem().detail().startsWith("body: "), e.problem().detail());
    }
  }

  @Test
  void delayMsReachesTheContractsMaximumAndNoFurther() throws Exception {
    assertEquals(NOW + 316_224_000_000L, parse("{" + TARGET + ",\"delay_ms\":316224000000}").triggerTimeMs());
    assertTrue(refusal("{" + TARGET + ",\"delay_ms\":316224000001}").startsWith("delay_ms: "));
  }

  @Test
  void wholeNumbersWrittenAsDecimalsAreTheirValue() throws Exception {
    assertEquals(7, parse("{" + TARGET + ",\"priority\":7.0}").priority());
    assertEquals(9, parse("{" + TARGET + ",\"priority\":9E0}").priority());
  }

  /** Finding 2: a payload nested ~1000 deep was stored and then could never be encoded again. */
  @Test
  void aPayloadNestedDeeperThanSixtyFourLevelsIsRefused() throws Exception {
    assertEquals(64, JsonLimits.depth(HttpJson.decode(Buffer.buffer("{\"p\":" + nested(64) + "}")).getValue("p")));
    parse("{" + TARGET + ",\"payload\":" + nested(64) + "}");
    assertTrue(refusal("{" + TARGET + ",\"payload\":" + nested(65) + "}").startsWith("payload: nested more than 64"));
    assertTrue(refusal("{" + TARGET + ",\"payload\":" + nested(998) + "}").contains("nested more than"));
    assertTrue(refusal(nested(100_000)).contains("nested more than"));
  }

  /** Finding 3: PostgreSQL refuses NUL in text and jsonb; it was a 500 at insert time. */
  @ParameterizedTest
  @ValueSource(strings = {"\"payload\":{\"a\":\"x\\u0000y\"}", "\"payload\":{\"a\\u0000\":1}", "\"biz_key\":\"k\\u0000\"",
      "\"payload\":[\"\\ud800\"]", "\"payload\":{\"\\udc00\":1}"})
  void aNulCharacterOrALoneSurrogateIsRefusedNamingWhere(String field) {
    String detail = refusal("{" + TARGET + "," + field + "}");
    assertTrue(detail.contains("NUL") || detail.contains("lone surrogate"), detail);
    assertTrue(detail.startsWith(field.startsWith("\"biz_key\"") ? "biz_key" : "payload"), detail);
  }

  @Test
  void aKeyTwiceInOneObjectIsRefused() {
    assertTrue(refusal("{" + TARGET + ",\"priority\":1,\"priority\":9}").contains("twice"));
    assertTrue(refusal("{" + TARGET + ",\"payload\":{\"a\":1,\"a\":2}}").contains("twice"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"{", "{\"task_type\":}", "[1]x", "\"just a string\"x"})
  void malformedJsonIsRefused(String json) {
    assertThrows(InvalidRequest.class, () -> parse(json));
  }

  @Test
  void bytesThatAreNotUtf8AreRefused() {
    byte[] body = ("{" + TARGET + ",\"biz_key\":\"k?\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    body[body.length - 3] = (byte) 0xC3; // a lead byte followed by '"': not UTF-8
    InvalidRequest e = assertThrows(InvalidRequest.class, () -> HttpJson.decode(Buffer.buffer(body)));
    assertTrue(e.problem().detail().startsWith("body: "), e.problem().detail());
  }

  @Test
  void jsonThatIsNotAnObjectIsNoBody() throws Exception {
    assertEquals(null, HttpJson.decode(Buffer.buffer("[1,2]")));
    assertTrue(refusal("[1,2]").startsWith("body: "));
  }

  private static String nested(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }
}
