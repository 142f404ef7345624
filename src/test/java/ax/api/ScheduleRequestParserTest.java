package ax.api;

import ax.api.ScheduleRequestParser.Definition;
import ax.http.CallbackUrlPolicy;
import ax.schedule.MisfirePolicy;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ScheduleRequestParserTest {
  private static final long NOW = Instant.parse("2026-12-01T10:00:00.000Z").toEpochMilli();
  private final ScheduleRequestParser parser =
      new ScheduleRequestParser(new TaskRequestParser(new CallbackUrlPolicy(List.of("hooks.example.com"))));

  private static JsonObject task() {
    return new JsonObject().put("task_type", "partner.sync").put("callback_url", "https://hooks.example.com/sync");
  }

  private Definition parse(String json) throws InvalidRequest {
    return parser.parse(new JsonObject(json), NOW);
  }

  private String refusal(JsonObject body) {
    return assertThrows(InvalidRequest.class, () -> parser.parse(body, NOW)).problem().detail();
  }

  @Test
  void aDailyCronInAsiaShanghaiPreviewsItsNextFiveFireTimes() throws Exception {
    Definition d = parser.parse(new JsonObject().put("cron", "0 2 * * *").put("time_zone", "Asia/Shanghai")
        .put("task", task()), NOW);
    assertEquals(Instant.parse("2026-12-01T18:00:00Z"), d.firstDue(), "02:00 in Shanghai is 18:00 UTC");
    assertEquals(5, d.nextFireTimes().size());
    assertEquals(Instant.parse("2026-12-05T18:00:00Z"), d.nextFireTimes().get(4));
    assertEquals(MisfirePolicy.FIRE_ONCE, d.misfire(), "the default");
  }

  @Test
  void theTemplateIsStoredWithEveryDefaultAndThePayloadExactly() throws Exception {
    // As JsonLimits reads a body: numbers exactly (Jackson alone would round this one to a double).
    JsonObject task = new JsonObject().put("task_type", "cache.refresh").put("processor", "refresh")
        .put("payload", new JsonObject().put("big", new java.math.BigDecimal("123456789012345678901234567890.5")));
    Definition d = parser.parse(new JsonObject().put("every_ms", 30_000).put("task", task), NOW);
    assertEquals("{\"task_type\":\"cache.refresh\",\"callback_url\":null,\"processor\":\"refresh\","
        + "\"payload\":{\"big\":123456789012345678901234567890.5},\"max_retry\":2,\"priority\":5,\"timeout_ms\":60000,"
        + "\"notify_url\":null,\"shard_total\":1}", d.templateJson());
    assertEquals(Instant.ofEpochMilli(NOW), d.firstDue(), "a fixed rate starts at start_at, now by default");
    assertEquals(Instant.ofEpochMilli(NOW + 120_000), d.nextFireTimes().get(4));
  }

  @Test
  void maxRunsAndEndAtBoundThePreview() throws Exception {
    assertEquals(2, parse("{\"every_ms\":1000,\"max_runs\":2,\"task\":" + task().encode() + "}").nextFireTimes().size());
    Definition ending = parse("{\"every_ms\":60000,\"end_at\":\"2026-12-01T10:02:00Z\",\"task\":" + task().encode()
        + "}");
    assertEquals(3, ending.nextFireTimes().size(), "10:00, 10:01, 10:02");
  }

  @Test
  void aScheduleThatCannotFireAgainHasNoFirstDueTime() throws Exception {
    Definition past = parse("{\"cron\":\"0 0 1 1 *\",\"start_at\":\"2026-06-01T00:00:00Z\","
        + "\"end_at\":\"2026-11-01T00:00:00Z\",\"task\":" + task().encode() + "}");
    assertNull(past.firstDue());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"task\":{}}                                              | cron: exactly one of cron, every_ms or after_ms",
      "{\"cron\":\"* * * * *\",\"every_ms\":1000,\"task\":{}}     | cron: exactly one of",
      "{\"cron\":\"* * *\",\"task\":{}}                           | cron: needs 5 fields",
      "{\"every_ms\":999,\"task\":{}}                             | every_ms: must be a whole number 1000..",
      "{\"every_ms\":1000,\"time_zone\":\"Europe/Berlin\",\"task\":{}} | time_zone: applies to cron schedules only",
      "{\"cron\":\"* * * * *\",\"time_zone\":\"Mars/Olympus\",\"task\":{}} | time_zone: must be an IANA time zone",
      "{\"cron\":\"* * * * *\",\"time_zone\":\"+08:00\",\"task\":{}} | time_zone: must be an IANA time zone",
      "{\"every_ms\":1000,\"misfire\":\"later\",\"task\":{}}      | misfire: must be one of fire_once, fire_all, skip",
      "{\"every_ms\":1000,\"max_runs\":0,\"task\":{}}             | max_runs: must be a whole number 1..",
      "{\"every_ms\":1000,\"end_at\":\"2026-12-01T09:00:00Z\",\"task\":{}} | end_at: must not be before start_at",
      "{\"every_ms\":1000}                                        | task: is required",
      "{\"every_ms\":1000,\"task\":{\"task_type\":\"x\",\"processor\":\"p\",\"biz_key\":\"k\"}} | task.biz_key: is set per occurrence",
      "{\"every_ms\":1000,\"task\":{\"task_type\":\"x\",\"processor\":\"p\",\"dedupe\":true}} | task.dedupe: does not apply to occurrences",
      "{\"every_ms\":1000,\"task\":{\"task_type\":\"x\"}}         | task.callback_url: exactly one of callback_url or processor",
      "{\"every_ms\":1000,\"task\":{\"task_type\":\"x\",\"processor\":\"p\",\"priority\":10}} | task.priority: must be a whole number 0..9",
      "{\"every_ms\":1000,\"colour\":\"red\",\"task\":{}}         | colour: unknown field",
      "{\"every_ms\":1000,\"name\":null,\"task\":{}}              | name: must not be null",
  })
  void badDefinitionsAreRefusedNamingTheField(String json, String detail) {
    String refused = refusal(new JsonObject(json));
    assertEquals(true, refused.startsWith(detail.trim()), refused);
  }
}
