package ax.executor;

import java.util.ArrayList;
import java.util.List;

/** One scheduler node's bridge endpoint, {@code host:port}. */
public record ServerAddress(String host, int port) {
  public ServerAddress {
    if (host == null || host.isBlank() || port < 1 || port > 65_535) {
      throw new IllegalArgumentException("bad server address " + host + ":" + port);
    }
  }

  /** Parses {@code host:port} (IPv6 literals as {@code [::1]:7000}). */
  public static ServerAddress parse(String spec) {
    String s = spec.trim();
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("bad server address '" + spec + "': expected host:port");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new ServerAddress(host, Integer.parseInt(s.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad port in server address '" + spec + "'");
    }
  }

  /** Parses {@code h1:p1,h2:p2,…}. */
  public static List<ServerAddress> parseList(String csv) {
    List<ServerAddress> out = new ArrayList<>();
    for (String part : csv.split(",")) {
      if (!part.isBlank()) {
        out.add(parse(part));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no server addresses in '" + csv + "'");
    }
    return out;
  }

  @Override
  public String toString() {
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }
}
