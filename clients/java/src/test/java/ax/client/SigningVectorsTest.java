package ax.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Java client signs every vector of ../signing-test-vectors.json as the server does (the server's
 * SigningVectorsTest reads the same file): first the algorithm, then the interceptor on an OkHttp request
 * built as the generated client builds one.
 */
class SigningVectorsTest {
  private static final JsonObject DOC = read();

  static Stream<JsonObject> vectors() {
    return StreamSupport.stream(DOC.getAsJsonArray("vectors").spliterator(), false).map(v -> v.getAsJsonObject());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void theSignerComputesTheVector(JsonObject v) {
    byte[] body = text(v, "body").getBytes(StandardCharsets.UTF_8);
    assertEquals(text(v, "canonical_query"), AxSigner.canonicalQuery(text(v, "query")), text(v, "name"));
    assertEquals(text(v, "string_to_sign"), AxSigner.stringToSign(text(v, "method"), text(v, "path"),
        text(v, "query"), text(v, "timestamp"), text(v, "nonce"), body), text(v, "name"));
    assertEquals(text(v, "signature"), new AxSigner(DOC.get("secret").getAsString()).signature(text(v, "method"),
        text(v, "path"), text(v, "query"), text(v, "timestamp"), text(v, "nonce"), body), text(v, "name"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void theInterceptorSignsTheRequestOkHttpWillSend(JsonObject v) throws Exception {
    String body = text(v, "body");
    String query = text(v, "query");
    Request request = new Request.Builder()
        .url("http://127.0.0.1:8080" + text(v, "path") + (query.isEmpty() ? "" : "?" + query))
        .method(text(v, "method"), body.isEmpty() && text(v, "method").equals("GET") ? null
            : RequestBody.create(body.getBytes(StandardCharsets.UTF_8), MediaType.get("application/json; charset=utf-8")))
        .build();
    Clock clock = Clock.fixed(Instant.ofEpochMilli(Long.parseLong(text(v, "timestamp"))), ZoneOffset.UTC);
    SigningInterceptor interceptor = new SigningInterceptor(DOC.get("access_key").getAsString(),
        DOC.get("secret").getAsString(), clock, () -> text(v, "nonce"));

    Request signed = interceptor.sign(request);

    assertEquals(text(v, "signature"), signed.header("X-Ax-Signature"), text(v, "name"));
    assertEquals(DOC.get("access_key").getAsString(), signed.header("X-Ax-Key"));
    assertEquals(text(v, "timestamp"), signed.header("X-Ax-Timestamp"));
    assertEquals(text(v, "nonce"), signed.header("X-Ax-Nonce"));
    if (signed.body() != null) {
      Buffer sent = new Buffer();
      signed.body().writeTo(sent);
      assertArrayEquals(body.getBytes(StandardCharsets.UTF_8), sent.readByteArray(), "signing leaves the body to send");
    }
  }

  @Test
  void noncesAreFreshAndOfTheAlphabetTheServerTakes() {
    String a = SigningInterceptor.randomNonce();
    assertTrue(a.matches("[A-Za-z0-9_-]{8,64}"), a);
    assertTrue(!a.equals(SigningInterceptor.randomNonce()));
  }

  private static String text(JsonObject v, String member) {
    return v.get(member).getAsString();
  }

  private static JsonObject read() {
    try {
      return JsonParser.parseString(Files.readString(Path.of("../signing-test-vectors.json"))).getAsJsonObject();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("clients/signing-test-vectors.json is missing", e);
    }
  }
}
