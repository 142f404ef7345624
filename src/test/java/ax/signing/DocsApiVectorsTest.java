package ax.signing;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test vectors published in {@code docs/api.md} are what client authors check their code against,
 * so each one is recomputed here with the server's own signing code: the page cannot drift from what
 * the server accepts.
 */
class DocsApiVectorsTest {
  private static final Path PAGE = Path.of("docs/api.md");
  private static final Pattern SECRET = Pattern.compile("Secret `([^`]+)`, timestamp `(\\d+)`");
  private static final Pattern CELL = Pattern.compile("`([^`]*)`");

  private static String section(String page, String heading) {
    int start = page.indexOf("\n## " + heading + "\n");
    assertTrue(start >= 0, "docs/api.md has no section '" + heading + "'");
    int end = page.indexOf("\n## ", start + 4);
    return page.substring(start, end < 0 ? page.length() : end);
  }

  private static List<String> cells(String row) {
    List<String> out = new ArrayList<>();
    for (String cell : row.substring(1, row.lastIndexOf('|')).split("\\|", -1)) {
      Matcher m = CELL.matcher(cell.trim());
      out.add(m.matches() ? m.group(1) : cell.trim());
    }
    return out;
  }

  @Test
  void everyRequestSigningVectorOnThePageIsWhatTheServerComputes() throws Exception {
    String vectors = section(Files.readString(PAGE), "Test vectors");
    Matcher key = SECRET.matcher(vectors);
    assertTrue(key.find(), "the vectors name their secret and timestamp");
    int checked = 0;
    for (String line : vectors.split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      List<String> c = cells(line);
      assertEquals(6, c.size(), line);
      String toSign = RequestSigning.stringToSign(c.get(0), c.get(1), RequestSigning.canonicalQuery(c.get(2)),
          key.group(2), c.get(3), c.get(4).getBytes(StandardCharsets.UTF_8));
      assertEquals(c.get(5), RequestSigning.hmacSha256Hex(key.group(1), toSign), "vector " + line);
      checked++;
    }
    assertEquals(4, checked, "rows read from the vector table");
  }

  @Test
  void theIntermediateValuesOnThePageAreRight() throws Exception {
    String vectors = section(Files.readString(PAGE), "Test vectors");
    assertTrue(vectors.contains("the canonical query is `"
        + RequestSigning.canonicalQuery("task_type=coupon.grant&status=DELAYED&limit=50") + "`"));
    assertTrue(vectors.contains("the canonical query is `"
        + RequestSigning.canonicalQuery("task_type=coupon%2Egrant&status=READY&cursor=a%2Bb+c&z=%E4%BD%A0") + "`"));
    String postBody = "{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,"
        + "\"callback_url\":\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}";
    String toSign = RequestSigning.stringToSign("POST", "/p", "", "1", "nonce123",
        postBody.getBytes(StandardCharsets.UTF_8));
    assertTrue(vectors.contains(toSign.substring(toSign.lastIndexOf('\n') + 1)), "row 1's body hash");
  }

  @Test
  void theOutgoingCallVectorOnThePageIsWhatTheServerSends() throws Exception {
    String outgoing = section(Files.readString(PAGE), "Outgoing calls: HTTP targets");
    Matcher v = Pattern.compile("Vector: secret `([^`]+)`.*?\\(`(\\{.*?\\})`\\),\\s*`t=(\\d+)` → `v1=([0-9a-f]{64})`",
        Pattern.DOTALL).matcher(outgoing);
    assertTrue(v.find(), "the outgoing-call vector is on the page");
    byte[] body = v.group(2).getBytes(StandardCharsets.UTF_8);
    String header = OutboundSignature.header(v.group(1), Long.parseLong(v.group(3)), body);
    assertEquals("t=" + v.group(3) + ",v1=" + v.group(4), header);
    assertTrue(OutboundSignature.verify(v.group(1), header, body, Long.parseLong(v.group(3)), 300_000));
  }
}
