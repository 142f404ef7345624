package ax.http;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which URLs ax may call ({@code callback_url}, {@code notify_url}): the defence against server-side
 * request forgery of API.md "Outgoing calls" and RELIABILITY.md. An outgoing call happens on the
 * scheduler's network, so a URL chosen by a client must not reach anything the client itself could
 * not: loopback services, the private network, or the cloud metadata endpoint that hands out
 * credentials.
 *
 * <p>Two checks, both run at submission and again at send time:
 * <ol>
 *   <li>{@link #checkUrl}: syntax and the host allow-list, without DNS. Hosts are compared as text,
 *       case-insensitively; an allow-list entry {@code *.example.com} admits any subdomain of
 *       {@code example.com} (not {@code example.com} itself).</li>
 *   <li>{@link #checkResolved}: every address the host resolves to must be public. One bad address
 *       is enough to refuse, because the connection could go to any of them — and the caller must
 *       connect to an address it checked, never resolve again (DNS rebinding). The operator may
 *       still list an internal host by its exact name: that is a deliberate choice. A wildcard entry
 *       never admits an internal address, since anyone who controls a subdomain's DNS could point it
 *       inward.</li>
 * </ol>
 *
 * <p>Numeric hosts other than the canonical dotted quad ({@code http://2130706433/},
 * {@code http://0177.0.0.1/}) are malformed here: URL parsers disagree about them (Java reads
 * {@code 0177.0.0.1} as 177.0.0.1, a browser or curl as 127.0.0.1), so no allow-list entry can be
 * trusted to mean what the caller thinks. Immutable and thread-safe.
 */
public final class CallbackUrlPolicy {

  /** Error code for a URL that is not a well-formed absolute http(s) URL. */
  public static final String VALIDATION_FAILED = "validation_failed";
  /** Error code for a well-formed URL whose host is not allowed or resolves somewhere forbidden. */
  public static final String NOT_ALLOWED = "callback_url_not_allowed";
  /** Longest URL accepted. */
  public static final int MAX_URL_LENGTH = 2048;

  /**
   * The answer to a check.
   *
   * @param allowed whether the URL may be called
   * @param code    null when allowed, else {@link #VALIDATION_FAILED} or {@link #NOT_ALLOWED}
   * @param detail  null when allowed, else why, for the problem response's {@code detail}
   */
  public record Verdict(boolean allowed, String code, String detail) {
    private static final Verdict OK = new Verdict(true, null, null);

    public static Verdict ok() {
      return OK;
    }

    static Verdict invalid(String detail) {
      return new Verdict(false, VALIDATION_FAILED, detail);
    }

    static Verdict notAllowed(String detail) {
      return new Verdict(false, NOT_ALLOWED, detail);
    }
  }

  /** A WHATWG URL parser treats a host whose last label is numeric as an IPv4 address. */
  private static final Pattern NUMERIC_LAST_LABEL = Pattern.compile("(?:^|.*\\.)(?:\\d+|0x[0-9a-f]*)\\.?");
  private static final Pattern CANONICAL_IPV4 =
      Pattern.compile("(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");

  private final Set<String> exactHosts = new HashSet<>();
  /** Wildcard entries as suffixes: {@code *.example.com} is stored as {@code .example.com}. */
  private final List<String> subdomainSuffixes = new ArrayList<>();
  /**
   * {@link #checkUrl}'s answers by URL. A policy never changes after construction, and a batch of 1000
   * tasks names the same few URLs a thousand times: parsing them again was ~15 % of the API's samples in
   * a profile of batch ingest. Long URLs are not kept.
   */
  private final BoundedMemo<String, Judged> judged = new BoundedMemo<>(4096);
  private static final int REMEMBERED_URL_LENGTH = 512;

  /** A URL's verdict, and its host when the verdict allows it. */
  private record Judged(Verdict verdict, String host) {
  }

  /**
   * @param allowedHosts host names or IP literals (IPv6 with or without brackets), case-insensitive;
   *                     {@code *.example.com} for subdomains; blank entries are ignored
   * @throws IllegalArgumentException for an entry with a {@code *} anywhere but a leading
   *                                  {@code *.} followed by a domain
   */
  public CallbackUrlPolicy(Collection<String> allowedHosts) {
    for (String entry : allowedHosts) {
      String host = normalizeHost(entry.trim());
      if (host.isEmpty()) {
        continue;
      }
      String rest = host.startsWith("*.") ? host.substring(2) : host;
      if (rest.isEmpty() || rest.contains("*")) {
        throw new IllegalArgumentException("callback allow-list entry \"" + entry
            + "\" is not a host, an IP address or *.domain");
      }
      if (host.startsWith("*.")) {
        subdomainSuffixes.add("." + rest);
      } else {
        exactHosts.add(host);
      }
    }
  }

  /**
   * Checks a URL's form and its host against the allow-list, without DNS: an absolute {@code http}
   * or {@code https} URL of at most {@value #MAX_URL_LENGTH} characters, with a host, no user info,
   * a port in 1–65535 if one is given, and no fragment.
   */
  public Verdict checkUrl(String url) {
    return judged(url).verdict();
  }

  /** The host of {@code url} as {@code URI.create(url).getHost()} gives it (remembered for an allowed URL). */
  public String hostOf(String url) {
    Judged j = judged(url);
    return j.verdict().allowed() ? j.host() : URI.create(url).getHost();
  }

  private Judged judged(String url) {
    if (url == null || url.length() > REMEMBERED_URL_LENGTH) {
      return judge(url);
    }
    Judged j = judged.get(url);
    if (j == null) {
      j = judge(url);
      judged.put(url, j);
    }
    return j;
  }

  private static Judged refused(Verdict verdict) {
    return new Judged(verdict, null);
  }

  /** The verdict, with the host of an allowed URL (from the one parse that judged it). */
  private Judged judge(String url) {
    if (url == null || url.isBlank()) {
      return refused(Verdict.invalid("callback URL is empty"));
    }
    if (url.codePointCount(0, url.length()) > MAX_URL_LENGTH) {
      return refused(Verdict.invalid("callback URL is longer than " + MAX_URL_LENGTH + " characters"));
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return refused(Verdict.invalid("callback URL is malformed: " + e.getReason() + " at index " + e.getIndex()));
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return refused(Verdict.invalid("callback URL must be an absolute http or https URL"));
    }
    if (uri.isOpaque()) {
      return refused(Verdict.invalid("callback URL must have the form " + scheme + "://host/path"));
    }
    if (uri.getRawUserInfo() != null) {
      return refused(Verdict.invalid("callback URL must not contain user info"));
    }
    if (uri.getHost() == null) {
      return refused(Verdict.invalid("callback URL has no valid host"));
    }
    if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65_535)) {
      return refused(Verdict.invalid("callback URL port must be 1–65535, was " + uri.getPort()));
    }
    if (uri.getRawFragment() != null) {
      return refused(Verdict.invalid("callback URL must not contain a fragment"));
    }
    String host = normalizeHost(uri.getHost());
    if (isAmbiguousNumber(host)) {
      return refused(Verdict.invalid("callback URL host " + uri.getHost()
          + " is a numeric address in a non-standard form; write it as a.b.c.d"));
    }
    if (!isListed(host)) {
      return refused(Verdict.notAllowed("callback host " + uri.getHost() + " is not on the allow-list"));
    }
    return new Judged(Verdict.ok(), uri.getHost());
  }

  /**
   * Checks where an allowed host actually points. Refused when the host is not on the allow-list,
   * when there is no address, or when any address is loopback, unspecified, link-local (including
   * 169.254.0.0/16), private (10/8, 172.16/12, 192.168/16, fec0::/10), unique-local (fc00::/7),
   * carrier-grade NAT (100.64/10), multicast, reserved or broadcast (0/8, 240/4), or a cloud
   * metadata address (169.254.169.254, fd00:ec2::254) — also in IPv4-mapped, IPv4-compatible or
   * NAT64 (64:ff9b::/96) form. A host listed exactly (not through a wildcard) may resolve anywhere.
   *
   * @param host      the host as written in the URL ({@code URI.getHost()}, brackets allowed)
   * @param addresses every address the host resolved to
   */
  public Verdict checkResolved(String host, List<InetAddress> addresses) {
    String normalized = host == null ? "" : normalizeHost(host);
    if (!isListed(normalized)) {
      return Verdict.notAllowed("callback host " + host + " is not on the allow-list");
    }
    if (addresses == null || addresses.isEmpty()) {
      return Verdict.notAllowed("callback host " + host + " resolved to no address");
    }
    if (exactHosts.contains(normalized)) {
      return Verdict.ok();
    }
    for (InetAddress address : addresses) {
      String kind = InternalAddresses.kindOf(address);
      if (kind != null) {
        return Verdict.notAllowed("callback host " + host + " resolves to " + address.getHostAddress()
            + ", a " + kind + " address");
      }
    }
    return Verdict.ok();
  }

  private boolean isListed(String host) {
    if (exactHosts.contains(host)) {
      return true;
    }
    for (String suffix : subdomainSuffixes) {
      if (host.endsWith(suffix)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAmbiguousNumber(String host) {
    return !host.contains(":") && NUMERIC_LAST_LABEL.matcher(host).matches()
        && !CANONICAL_IPV4.matcher(host).matches();
  }

  /** Lower case, IPv6 brackets removed, so {@code [::1]} and {@code ::1} compare equal. */
  private static String normalizeHost(String host) {
    String lower = host.toLowerCase(Locale.ROOT);
    if (lower.length() >= 2 && lower.startsWith("[") && lower.endsWith("]")) {
      return lower.substring(1, lower.length() - 1);
    }
    return lower;
  }
}
