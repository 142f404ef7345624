package example.billing;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The test client signs exactly as API.md's vectors say, so a 401 in the live test means the server. */
class SignedApiTest {
  private static final String SECRET = "s3cr3t-key-0123456789abcdef";
  private static final String TIMESTAMP = "1764460800000";

  @Test
  void signsThePostVectorOfApiMd() throws Exception {
    String body = "{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,"
        + "\"callback_url\":\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}";
    assertThat(SignedApi.signature(SECRET, "POST", "/openapi/v1/tasks", null, TIMESTAMP, "n0nce-abc123",
        body.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808");
  }

  @Test
  void signsTheGetVectorOfApiMdWithItsQuerySorted() throws Exception {
    String query = "task_type=coupon.grant&status=DELAYED&limit=50";
    assertThat(SignedApi.canonicalQuery(query)).isEqualTo("limit=50&status=DELAYED&task_type=coupon.grant");
    assertThat(SignedApi.signature(SECRET, "GET", "/openapi/v1/tasks", query, TIMESTAMP, "n0nce-xyz789", new byte[0]))
        .isEqualTo("37fcf9f5fa5d1190823eabab61d8d94a2f945f191dd5b7bf6aa1c82e4feb5b50");
  }
}
