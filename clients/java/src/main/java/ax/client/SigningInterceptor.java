package ax.client;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.function.Supplier;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;

/**
 * Adds the four signing headers to every request, computed over what OkHttp is about to send: the
 * method, the encoded path and query of the final URL, and the body's bytes. Being an interceptor (not
 * a per-call argument) is what lets the generated methods take only the operation's own parameters.
 */
public final class SigningInterceptor implements Interceptor {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String accessKey;
  private final AxSigner signer;
  private final Clock clock;
  private final Supplier<String> nonces;

  public SigningInterceptor(String accessKey, String secret) {
    this(accessKey, secret, Clock.systemUTC(), SigningInterceptor::randomNonce);
  }

  /** With a given clock and nonces, for tests that must reproduce a signature. */
  SigningInterceptor(String accessKey, String secret, Clock clock, Supplier<String> nonces) {
    if (accessKey == null || accessKey.isEmpty()) {
      throw new IllegalArgumentException("accessKey is required");
    }
    this.accessKey = accessKey;
    this.signer = new AxSigner(secret);
    this.clock = clock;
    this.nonces = nonces;
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    return chain.proceed(sign(chain.request()));
  }

  /** The request with its signing headers (replacing any the generated client put there). */
  Request sign(Request request) throws IOException {
    byte[] body = bytes(request.body());
    String timestamp = Long.toString(clock.millis());
    String nonce = nonces.get();
    String signature = signer.signature(request.method(), request.url().encodedPath(), request.url().encodedQuery(),
        timestamp, nonce, body);
    return request.newBuilder()
        .header("X-Ax-Key", accessKey)
        .header("X-Ax-Timestamp", timestamp)
        .header("X-Ax-Nonce", nonce)
        .header("X-Ax-Signature", signature)
        .build();
  }

  /**
   * The body as it will be sent. The generated client builds bodies from byte arrays or strings, which
   * OkHttp can write again, so reading them here does not use them up.
   */
  private static byte[] bytes(RequestBody body) throws IOException {
    if (body == null) {
      return new byte[0];
    }
    if (body.isOneShot()) {
      throw new IOException("cannot sign a one-shot request body: its bytes can be read only once");
    }
    Buffer buffer = new Buffer();
    body.writeTo(buffer);
    return buffer.readByteArray();
  }

  /** 22 characters of base64url: within the 8–64 of {@code [A-Za-z0-9_-]} the server takes. */
  static String randomNonce() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
