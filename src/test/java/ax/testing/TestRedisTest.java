package ax.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TestRedisTest {

  @Test
  void redisAnswersPing() throws Exception {
    TestRedis redis = TestRedis.require();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(redis.host(), redis.port()), 2000);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      assertEquals("+PONG", in.readLine());
    }
  }

  @Test
  void everyInstanceHasItsOwnKeyPrefixAndAUrl() {
    TestRedis a = TestRedis.require();
    TestRedis b = TestRedis.require();
    assertNotEquals(a.keyPrefix(), b.keyPrefix());
    assertTrue(a.keyPrefix().matches("axtest:[0-9a-f]{12}:"), a.keyPrefix());
    assertTrue(a.url().startsWith("redis://"), a.url());
  }
}
