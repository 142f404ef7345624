package ax.tools;

import ax.signing.RequestSigning;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code ax sign}: prints the four signing headers for one request, one {@code Name: value} per line,
 * so curl users can write {@code curl -H @h.txt …}. The body signed must be byte-for-byte the body
 * sent: pass the same file to both with {@code --body-file}.
 */
@Command(name = "sign", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
    description = {"Prints the four signing headers of one API request, one 'Name: value' per line (for curl -H @FILE).",
        "Sign exactly the bytes you send."})
public final class SignCommand implements Callable<Integer> {
  private static final String NONCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

  @Option(names = "--key", required = true, paramLabel = "AK", description = "access key")
  String key;

  @Option(names = "--secret", required = true, paramLabel = "SK", description = "its secret")
  String secret;

  @Option(names = "--path", required = true, paramLabel = "PATH", description = "request path, e.g. /openapi/v1/tasks")
  String path;

  @Option(names = "--method", paramLabel = "METHOD", description = "default: GET without a body, POST with one")
  String method;

  @Option(names = "--query", paramLabel = "QUERY", description = "the query string as sent, without '?'")
  String query;

  @Option(names = "--body", paramLabel = "JSON", description = "the body as sent")
  String body;

  @Option(names = "--body-file", paramLabel = "FILE", description = "the body as sent, read from FILE")
  Path bodyFile;

  @Option(names = "--timestamp", paramLabel = "MS", description = "epoch milliseconds (default: now)")
  Long timestamp;

  @Option(names = "--nonce", paramLabel = "NONCE", description = "default: 24 random letters and digits")
  String nonce;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    byte[] bytes = body();
    String verb = (method != null ? method : bytes.length == 0 ? "GET" : "POST").toUpperCase(Locale.ROOT);
    String ts = Long.toString(timestamp != null ? timestamp : System.currentTimeMillis());
    String n = nonce != null ? nonce : randomNonce();
    String toSign = RequestSigning.stringToSign(verb, path, RequestSigning.canonicalQuery(query), ts, n, bytes);
    PrintWriter out = spec.commandLine().getOut();
    out.println("X-Ax-Key: " + key);
    out.println("X-Ax-Timestamp: " + ts);
    out.println("X-Ax-Nonce: " + n);
    out.println("X-Ax-Signature: " + RequestSigning.hmacSha256Hex(secret, toSign));
    out.flush();
    return 0;
  }

  private byte[] body() {
    if (body != null && bodyFile != null) {
      throw new ParameterException(spec.commandLine(), "--body and --body-file cannot both be given");
    }
    if (bodyFile == null) {
      return body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    }
    try {
      return Files.readAllBytes(bodyFile);
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "cannot read --body-file " + bodyFile + ": " + e);
    }
  }

  private static String randomNonce() {
    SecureRandom r = new SecureRandom();
    StringBuilder sb = new StringBuilder(24);
    for (int i = 0; i < 24; i++) {
      sb.append(NONCE_ALPHABET.charAt(r.nextInt(NONCE_ALPHABET.length())));
    }
    return sb.toString();
  }
}
