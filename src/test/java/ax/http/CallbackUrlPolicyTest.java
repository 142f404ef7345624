package ax.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.http.CallbackUrlPolicy.Verdict;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class CallbackUrlPolicyTest {

  private final CallbackUrlPolicy policy = new CallbackUrlPolicy(
      List.of("hooks.example.com", "*.partner.example", "Internal.Corp.Example", "10.0.0.5", "[fd12::1]", " "));

  /** A resolved address for a host name, built from a literal: no DNS involved. */
  private static InetAddress resolved(String host, String literal) throws UnknownHostException {
    return InetAddress.getByAddress(host, InetAddress.getByName(literal).getAddress());
  }

  /** The addresses the caller would get, as it gets them: {@code InetAddress.getAllByName(uri.getHost())}. */
  private static List<InetAddress> lookup(String url) throws UnknownHostException {
    return Arrays.asList(InetAddress.getAllByName(URI.create(url).getHost()));
  }

  private static void assertNotAllowed(Verdict verdict) {
    assertFalse(verdict.allowed());
    assertEquals("callback_url_not_allowed", verdict.code(), verdict.detail());
  }

  private static void assertMalformed(Verdict verdict) {
    assertFalse(verdict.allowed());
    assertEquals("validation_failed", verdict.code(), verdict.detail());
  }

  @Test
  void listedHostOverHttpOrHttpsIsAllowed() {
    assertEquals(Verdict.ok(), policy.checkUrl("https://hooks.example.com/grant?user=42"));
    assertEquals(Verdict.ok(), policy.checkUrl("http://hooks.example.com:8080/"));
    assertEquals(Verdict.ok(), policy.checkUrl("HTTPS://HOOKS.Example.COM"));
  }

  @Test
  void okVerdictCarriesNoCodeOrDetail() {
    assertEquals(new Verdict(true, null, null), Verdict.ok());
  }

  @Test
  void unlistedHostIsNotAllowedAndNamedInTheDetail() {
    Verdict verdict = policy.checkUrl("https://evil.example.net/x");

    assertNotAllowed(verdict);
    assertTrue(verdict.detail().contains("evil.example.net"), verdict.detail());
  }

  @Test
  void wildcardAllowsSubdomainsButNotTheDomainItselfOrLookalikes() {
    assertEquals(Verdict.ok(), policy.checkUrl("https://a.partner.example/"));
    assertEquals(Verdict.ok(), policy.checkUrl("https://deep.a.partner.example/"));
    assertNotAllowed(policy.checkUrl("https://partner.example/"));
    assertNotAllowed(policy.checkUrl("https://evilpartner.example/"));
    assertNotAllowed(policy.checkUrl("https://a.partner.example.evil.net/"));
  }

  @Test
  void exactEntryDoesNotAllowSubdomains() {
    assertNotAllowed(policy.checkUrl("https://x.hooks.example.com/"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ftp://hooks.example.com/file", "file:///etc/passwd", "javascript:alert(1)",
      "gopher://hooks.example.com/", "mailto:ops@hooks.example.com", "hooks.example.com/grant", "/grant",
      "//hooks.example.com/grant", "http:hooks.example.com"})
  void anythingButAnAbsoluteHttpUrlIsMalformed(String url) {
    assertMalformed(policy.checkUrl(url));
  }

  @ParameterizedTest
  @ValueSource(strings = {"https://user@hooks.example.com/", "https://user:pw@hooks.example.com/",
      "https://hooks.example.com@evil.example.net/"})
  void userInfoIsMalformed(String url) {
    assertMalformed(policy.checkUrl(url));
  }

  @ParameterizedTest
  @ValueSource(strings = {"https://hooks.example.com:0/", "https://hooks.example.com:65536/",
      "https://hooks.example.com:99999/"})
  void portOutsideOneTo65535IsMalformed(String url) {
    assertMalformed(policy.checkUrl(url));
  }

  @Test
  void highestPortIsAllowed() {
    assertEquals(Verdict.ok(), policy.checkUrl("https://hooks.example.com:65535/"));
  }

  @Test
  void fragmentIsMalformed() {
    assertMalformed(policy.checkUrl("https://hooks.example.com/grant#top"));
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "   ", "https://hooks.example.com/a b", "https://exa_mple.example.com/",
      "https://hooks.example.com/%zz", "https:///nohost"})
  void emptyOrUnparseableUrlIsMalformed(String url) {
    assertMalformed(policy.checkUrl(url));
  }

  @Test
  void urlUpTo2048CharactersIsAcceptedAndLongerIsMalformed() {
    String prefix = "https://hooks.example.com/";
    String atLimit = prefix + "a".repeat(2048 - prefix.length());

    assertEquals(Verdict.ok(), policy.checkUrl(atLimit));
    assertMalformed(policy.checkUrl(atLimit + "a"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1/", "http://[::1]/", "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/", "http://100.64.0.1/",
      "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://[fd00:ec2::254]/"})
  void internalAddressesWrittenIntoTheUrlAreRefusedUnlessListed(String url) throws UnknownHostException {
    assertNotAllowed(policy.checkUrl(url));
    assertNotAllowed(policy.checkResolved(URI.create(url).getHost(), lookup(url)));
  }

  @Test
  void decimalIntegerHostIsMalformedBecauseJavaWouldReachLoopback() throws UnknownHostException {
    String url = "http://2130706433/";

    assertEquals("2130706433", URI.create(url).getHost());
    assertEquals(List.of(InetAddress.getByName("127.0.0.1")), lookup(url));
    assertMalformed(policy.checkUrl(url));
    assertNotAllowed(policy.checkResolved("2130706433", lookup(url)));
  }

  @Test
  void octalHostIsMalformedBecauseParsersDisagreeOnWhatItMeans() throws UnknownHostException {
    String url = "http://0177.0.0.1/";

    assertEquals("0177.0.0.1", URI.create(url).getHost());
    // Java reads it as decimal 177.0.0.1; curl and browsers read it as octal 127.0.0.1.
    assertEquals(List.of(InetAddress.getByName("177.0.0.1")), lookup(url));
    assertMalformed(policy.checkUrl(url));
    assertNotAllowed(policy.checkResolved("0177.0.0.1", lookup(url)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://0x7f.0.0.1/", "http://127.1/", "http://017700000001/", "http://1.2.3.4.5/",
      "http://1.2.3.04/", "http://hooks.0x10/"})
  void otherNonCanonicalNumericHostsAreMalformed(String url) {
    assertMalformed(new CallbackUrlPolicy(List.of("*.0x10")).checkUrl(url));
  }

  @Test
  void canonicalIpLiteralOnTheListIsAllowedEvenWhenPrivate() throws UnknownHostException {
    assertEquals(Verdict.ok(), policy.checkUrl("http://10.0.0.5:9000/hook"));
    assertEquals(Verdict.ok(), policy.checkResolved("10.0.0.5", lookup("http://10.0.0.5:9000/hook")));
    assertEquals(Verdict.ok(), policy.checkUrl("http://[FD12::1]/hook"));
    assertEquals(Verdict.ok(), policy.checkResolved("[fd12::1]", lookup("http://[fd12::1]/hook")));
  }

  @Test
  void listedHostResolvingToPublicAddressesIsAllowed() throws UnknownHostException {
    List<InetAddress> addresses = List.of(resolved("hooks.example.com", "93.184.216.34"),
        resolved("hooks.example.com", "2606:2800:220:1:248:1893:25c8:1946"));

    assertEquals(Verdict.ok(), policy.checkResolved("hooks.example.com", addresses));
  }

  @Test
  void hostResolvingToLoopbackIsRefusedNamingTheAddress() throws UnknownHostException {
    Verdict verdict = policy.checkResolved("a.partner.example", List.of(resolved("a.partner.example", "127.0.0.1")));

    assertNotAllowed(verdict);
    assertTrue(verdict.detail().contains("127.0.0.1") && verdict.detail().contains("loopback"), verdict.detail());
  }

  @Test
  void oneInternalAddressAmongPublicOnesIsEnoughToRefuse() throws UnknownHostException {
    List<InetAddress> addresses = List.of(resolved("a.partner.example", "93.184.216.34"),
        resolved("a.partner.example", "169.254.169.254"));

    assertNotAllowed(policy.checkResolved("a.partner.example", addresses));
  }

  @Test
  void exactlyListedHostMayResolveToAPrivateAddress() throws UnknownHostException {
    List<InetAddress> addresses = List.of(resolved("internal.corp.example", "10.1.2.3"));

    assertEquals(Verdict.ok(), policy.checkResolved("internal.corp.example", addresses));
    assertEquals(Verdict.ok(), policy.checkResolved("INTERNAL.corp.example", addresses));
  }

  @Test
  void hostAllowedOnlyThroughAWildcardMayNotResolveToAPrivateAddress() throws UnknownHostException {
    assertNotAllowed(policy.checkResolved("svc.partner.example", List.of(resolved("svc.partner.example", "10.1.2.3"))));
  }

  @Test
  void hostThatResolvedToNothingIsRefused() {
    assertNotAllowed(policy.checkResolved("hooks.example.com", List.of()));
    assertNotAllowed(policy.checkResolved("internal.corp.example", List.of()));
    assertNotAllowed(policy.checkResolved("hooks.example.com", null));
  }

  @Test
  void unlistedHostIsRefusedEvenWhenItResolvesToAPublicAddress() throws UnknownHostException {
    assertNotAllowed(policy.checkResolved("evil.example.net", List.of(resolved("evil.example.net", "93.184.216.34"))));
    assertNotAllowed(policy.checkResolved(null, List.of(resolved("evil.example.net", "93.184.216.34"))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "127.255.255.254", "::1", "0.0.0.0", "::", "0.1.2.3", "169.254.169.254",
      "169.254.1.1", "fe80::1", "febf::1", "fec0::1", "10.0.0.1", "10.255.255.255", "172.16.5.4",
      "172.31.255.255", "192.168.1.1", "fc00::1", "fd00:ec2::254", "fdff::1", "100.64.0.1",
      "100.127.255.255", "224.0.0.1", "239.255.255.250", "ff02::1", "255.255.255.255", "240.0.0.1",
      "::ffff:127.0.0.1", "::ffff:169.254.169.254"})
  void internalAddressBehindAWildcardHostIsRefused(String literal) throws UnknownHostException {
    assertNotAllowed(policy.checkResolved("a.partner.example", List.of(resolved("a.partner.example", literal))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
      "::192.168.0.1", "64:ff9b::169.254.169.254", "64:ff9b::10.0.0.1"})
  void ipv4WrappedInIpv6IsJudgedByTheIpv4Address(String literal) throws UnknownHostException {
    byte[] parsed = InetAddress.getByName(literal).getAddress();
    byte[] sixteenBytes = parsed.length == 16 ? parsed : ipv4Mapped(parsed);
    InetAddress wrapped = Inet6Address.getByAddress("a.partner.example", sixteenBytes, -1);

    assertTrue(wrapped instanceof Inet6Address);
    assertNotAllowed(policy.checkResolved("a.partner.example", List.of(wrapped)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"93.184.216.34", "8.8.8.8", "172.15.255.255", "172.32.0.1", "100.63.255.255",
      "100.128.0.1", "11.0.0.1", "192.167.1.1", "169.253.1.1", "223.255.255.255",
      "2606:2800:220:1:248:1893:25c8:1946", "2001:4860:4860::8888", "64:ff9b::8.8.8.8"})
  void publicAddressBehindAWildcardHostIsAllowed(String literal) throws UnknownHostException {
    List<InetAddress> addresses = List.of(resolved("a.partner.example", literal));

    assertEquals(Verdict.ok(), policy.checkResolved("a.partner.example", addresses));
  }

  @Test
  void publicIpv4WrappedInIpv6IsAllowed() throws UnknownHostException {
    byte[] mapped = ipv4Mapped(InetAddress.getByName("8.8.8.8").getAddress());

    assertEquals(Verdict.ok(), policy.checkResolved("a.partner.example",
        List.of(Inet6Address.getByAddress("a.partner.example", mapped, -1))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"*", "*.", "a.*.example", "*example.com", "**.example.com"})
  void allowListEntryWithAStrayWildcardIsRejected(String entry) {
    IllegalArgumentException thrown =
        assertThrows(IllegalArgumentException.class, () -> new CallbackUrlPolicy(List.of(entry)));
    assertTrue(thrown.getMessage().contains(entry), thrown.getMessage());
  }

  @Test
  void emptyAllowListAllowsNothing() {
    assertNotAllowed(new CallbackUrlPolicy(List.of()).checkUrl("https://hooks.example.com/"));
  }

  private static byte[] ipv4Mapped(byte[] ipv4) {
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xff;
    mapped[11] = (byte) 0xff;
    System.arraycopy(ipv4, 0, mapped, 12, 4);
    return mapped;
  }

  /**
   * Verdicts are remembered by URL: asked again, and after more distinct URLs than are remembered, a URL
   * gets the verdict and host a fresh policy gives it.
   */
  @Test
  void rememberedVerdictsAreTheVerdictsAndHostsOfAFreshCheck() {
    List<String> urls = List.of("https://hooks.example.com/a", "http://x.partner.example:8080/b?c=d",
        "https://evil.example/", "ftp://hooks.example.com/", "https://hooks.example.com/#frag",
        "http://[fd12::1]/hook", "http://0x7f.1/", "https://HOOKS.example.com/case");
    for (int round = 0; round < 3; round++) {
      for (String url : urls) {
        CallbackUrlPolicy fresh = new CallbackUrlPolicy(
            List.of("hooks.example.com", "*.partner.example", "Internal.Corp.Example", "10.0.0.5", "[fd12::1]"));
        assertEquals(fresh.checkUrl(url), policy.checkUrl(url), url);
        assertEquals(URI.create(url).getHost(), policy.hostOf(url), url);
      }
      for (int i = 0; i < 5000; i++) { // more than it keeps: it forgets, and must still answer the same
        assertTrue(policy.checkUrl("https://hooks.example.com/n/" + round + "/" + i).allowed());
      }
    }
    String longUrl = "https://hooks.example.com/" + "p".repeat(1000);
    assertTrue(policy.checkUrl(longUrl).allowed());
    assertEquals("hooks.example.com", policy.hostOf(longUrl));
  }
}
