package ax.tools;

import ax.signing.RequestSigning;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code ax sign}: prints the four signing headers for one request, one {@code Name: value} per line,
 * so curl users can write {@code curl -H @<(java -jar ax.jar sign …) …}. The body signed must be
 * byte-for-byte the body sent: pass the same file to both with {@code --body-file}.
 */
public final class SignCommand {
  private SignCommand() {
  }

  public static int run(String[] args) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        System.err.println("sign: expected --name value pairs, got " + args[i]);
        return 2;
      }
      opts.put(args[i].substring(2), args[++i]);
    }
    String key = opts.get("key");
    String secret = opts.get("secret");
    String path = opts.get("path");
    if (key == null || secret == null || path == null) {
      System.err.println("sign: --key, --secret and --path are required");
      return 2;
    }
    byte[] body;
    try {
      body = opts.containsKey("body-file") ? Files.readAllBytes(Path.of(opts.get("body-file")))
          : opts.getOrDefault("body", "").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      System.err.println("sign: cannot read " + opts.get("body-file") + ": " + e.getMessage());
      return 2;
    }
    String method = opts.getOrDefault("method", body.length == 0 ? "GET" : "POST").toUpperCase();
    String timestamp = opts.getOrDefault("timestamp", Long.toString(System.currentTimeMillis()));
    String nonce = opts.getOrDefault("nonce", randomNonce());
    String toSign = RequestSigning.stringToSign(method, path, RequestSigning.canonicalQuery(opts.get("query")),
        timestamp, nonce, body);
    System.out.println("X-Ax-Key: " + key);
    System.out.println("X-Ax-Timestamp: " + timestamp);
    System.out.println("X-Ax-Nonce: " + nonce);
    System.out.println("X-Ax-Signature: " + RequestSigning.hmacSha256Hex(secret, toSign));
    return 0;
  }

  private static String randomNonce() {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    SecureRandom r = new SecureRandom();
    StringBuilder sb = new StringBuilder(24);
    for (int i = 0; i < 24; i++) {
      sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return sb.toString();
  }
}
