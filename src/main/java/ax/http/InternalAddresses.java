package ax.http;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * Recognises addresses a client-chosen URL must not reach from the scheduler's network (see
 * {@link CallbackUrlPolicy}). Works on the raw bytes rather than {@code InetAddress.isSiteLocalAddress()}
 * and friends, because those miss carrier-grade NAT, IPv6 unique-local addresses and IPv4 addresses
 * wrapped in IPv6 — the usual ways around a naive check.
 */
final class InternalAddresses {

  /** AWS's IPv6 instance metadata endpoint, fd00:ec2::254. */
  private static final byte[] METADATA_IPV6 =
      {(byte) 0xfd, 0x00, 0x0e, (byte) 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};

  private InternalAddresses() {
  }

  /**
   * What kind of internal address this is — "loopback", "private", "cloud metadata", … — or null
   * when it is public. An IPv6 address that embeds an IPv4 one (mapped {@code ::ffff:a.b.c.d},
   * compatible {@code ::a.b.c.d}, NAT64 {@code 64:ff9b::a.b.c.d}) is judged by the IPv4 address.
   */
  static String kindOf(InetAddress address) {
    byte[] bytes = address.getAddress();
    return address instanceof Inet4Address ? ipv4Kind(bytes, 0) : ipv6Kind(bytes);
  }

  private static String ipv6Kind(byte[] b) {
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    if (Arrays.equals(b, METADATA_IPV6)) {
      return "cloud metadata";
    }
    if (zeros(b, 0, 16)) {
      return "unspecified";
    }
    if (zeros(b, 0, 15) && b[15] == 1) {
      return "loopback";
    }
    if (first == 0xfe && (second & 0xc0) == 0x80) {
      return "link-local";
    }
    if (first == 0xfe && (second & 0xc0) == 0xc0) {
      return "site-local";
    }
    if ((first & 0xfe) == 0xfc) {
      return "unique-local";
    }
    if (first == 0xff) {
      return "multicast";
    }
    boolean mapped = zeros(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    boolean compatible = zeros(b, 0, 12);
    boolean nat64 = first == 0x00 && second == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
        && zeros(b, 4, 12);
    return mapped || compatible || nat64 ? ipv4Kind(b, 12) : null;
  }

  private static String ipv4Kind(byte[] b, int offset) {
    int first = b[offset] & 0xff;
    int second = b[offset + 1] & 0xff;
    int third = b[offset + 2] & 0xff;
    int fourth = b[offset + 3] & 0xff;
    if (first == 169 && second == 254) {
      return third == 169 && fourth == 254 ? "cloud metadata" : "link-local";
    }
    if (first == 0) {
      return "unspecified";
    }
    if (first == 127) {
      return "loopback";
    }
    if (first == 10 || first == 172 && (second & 0xf0) == 16 || first == 192 && second == 168) {
      return "private";
    }
    if (first == 100 && (second & 0xc0) == 64) {
      return "carrier-grade NAT";
    }
    if (first >= 224 && first <= 239) {
      return "multicast";
    }
    if (first >= 240) {
      return first == 255 && second == 255 && third == 255 && fourth == 255 ? "broadcast" : "reserved";
    }
    return null;
  }

  private static boolean zeros(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
