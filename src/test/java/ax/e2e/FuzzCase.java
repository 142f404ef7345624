package ax.e2e;

import ax.e2e.FuzzJson.J;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One generated request, before it is signed and sent: everything {@link ApiFuzzIT} needs to send it
 * and to judge the answer. Placeholders in the path and query ({@value #KNOWN_ID}, {@value #CURSOR})
 * are filled at send time with a task id or a cursor this run has seen.
 *
 * @param what        the mutations, in words (what a failure report starts with)
 * @param operation   the openapi.yaml operationId the request is meant for; null for a path with none
 * @param method      the HTTP method
 * @param path        the path as sent (ISO-8859-1: one char per byte)
 * @param query       the raw query without {@code ?}, or null
 * @param body        the body
 * @param framing     how the body goes on the wire
 * @param contentType the Content-Type header, or null for none
 * @param headers     further headers, sent after the signing headers (may repeat one)
 * @param signing     how the request is signed
 * @param expect      what the answer must be
 * @param items       for a batch whose shape is valid: what each element's result must be; else empty
 */
record FuzzCase(String what, String operation, String method, String path, String query, Body body,
                RawHttp.Framing framing, String contentType, List<String[]> headers, Signing signing, Expect expect,
                List<Expect> items) {
  static final String KNOWN_ID = "{known}";
  static final String CURSOR = "{cursor}";

  FuzzCase with(String more, Expect e) {
    return new FuzzCase(what + "; " + more, operation, method, path, query, body, framing, contentType, headers,
        signing, expect.and(e), items);
  }

  FuzzCase withSigning(Signing s, Expect e) {
    return new FuzzCase(what + "; signing " + s, operation, method, path, query, body, framing, contentType, headers, s,
        expect.and(e), items);
  }

  FuzzCase withFraming(RawHttp.Framing f, String more, Expect e) {
    return new FuzzCase(what + "; " + more, operation, method, path, query, body, f, contentType, headers, signing,
        expect.and(e), items);
  }

  /** As {@link #withFraming}, but the framing decides the expectation alone (what came before no longer applies). */
  FuzzCase withFramingInstead(RawHttp.Framing f, String more, Expect e) {
    return new FuzzCase(what + "; " + more, operation, method, path, query, body, f, contentType, headers, signing, e,
        items);
  }

  FuzzCase withContentType(String ct, Expect e) {
    return new FuzzCase(what + "; content-type " + (ct == null ? "(none)" : "'" + ct + "'"), operation, method, path,
        query, body, framing, ct, headers, signing, expect.and(e), items);
  }

  FuzzCase withHeader(String name, String value, Expect e) {
    List<String[]> h = new ArrayList<>(headers);
    h.add(new String[] {name, value});
    return new FuzzCase(what + "; header " + name + ": " + value, operation, method, path, query, body, framing,
        contentType, h, signing, expect.and(e), items);
  }

  FuzzCase withQuery(String q, Expect e) {
    return new FuzzCase(what + "; query '" + q + "'", operation, method, path, q, body, framing, contentType, headers,
        signing, expect.and(e), items);
  }

  FuzzCase withBody(Body b, String more, Expect e) {
    return new FuzzCase(what + "; " + more, operation, method, path, query, b, framing, contentType, headers, signing,
        expect.and(e), items);
  }

  /** Another method: maybe another operation, so what was expected of this one no longer holds. */
  FuzzCase withMethod(String m, Expect e) {
    return new FuzzCase(what + "; method " + m, null, m, path, query, body, framing, contentType, headers, signing,
        e, List.of());
  }

  @Override
  public String toString() {
    return method + " " + path + (query == null ? "" : "?" + query) + " — " + what + " — expect " + expect;
  }

  /** How a request is signed; all but {@link #VALID} and {@link #UPPERCASE} are refused with 401 (or earlier). */
  enum Signing {
    VALID, UPPERCASE, UNSIGNED, NO_KEY, NO_TIMESTAMP, NO_NONCE, NO_SIGNATURE, UNKNOWN_KEY, WRONG_SECRET, STALE, FUTURE,
    TIMESTAMP_NOT_A_NUMBER, TIMESTAMP_SECONDS, SHORT_NONCE, LONG_NONCE, NONCE_BAD_CHARS, SIGNATURE_NOT_HEX,
    SIGNATURE_TRUNCATED, TAMPERED_BODY, TAMPERED_QUERY, REPLAYED;

    boolean accepted() {
      return this == VALID || this == UPPERCASE || this == REPLAYED;
    }
  }

  /** The body of a request. */
  sealed interface Body permits NoBody, Json, Raw, Utf16, Truncated, Bom {
    byte[] bytes(long nowMs);
  }

  record NoBody() implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      return new byte[0];
    }

    @Override
    public String toString() {
      return "(none)";
    }
  }

  /** A JSON document; with {@code padTo} > 0, spaces follow it up to exactly that many bytes. */
  record Json(J doc, int padTo) implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      byte[] b = FuzzJson.bytes(doc, nowMs);
      if (padTo <= b.length) {
        return b;
      }
      byte[] out = new byte[padTo];
      System.arraycopy(b, 0, out, 0, b.length);
      java.util.Arrays.fill(out, b.length, padTo, (byte) ' ');
      return out;
    }

    @Override
    public String toString() {
      return FuzzJson.write(doc, 300) + (padTo > 0 ? " padded to " + padTo + " bytes" : "");
    }
  }

  record Raw(byte[] raw) implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      return raw;
    }

    @Override
    public String toString() {
      return "raw " + FuzzJson.escape(raw, 120);
    }
  }

  /** The document in UTF-16 (big-endian, no BOM), which RFC 8259 does not allow between systems. */
  record Utf16(J doc) implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      return new String(FuzzJson.bytes(doc, nowMs), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_16BE);
    }

    @Override
    public String toString() {
      return "UTF-16 " + FuzzJson.write(doc, 200);
    }
  }

  /** The document after a UTF-8 byte order mark. */
  record Bom(J doc) implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      byte[] b = FuzzJson.bytes(doc, nowMs);
      byte[] out = new byte[b.length + 3];
      out[0] = (byte) 0xEF;
      out[1] = (byte) 0xBB;
      out[2] = (byte) 0xBF;
      System.arraycopy(b, 0, out, 3, b.length);
      return out;
    }

    @Override
    public String toString() {
      return "BOM " + FuzzJson.write(doc, 200);
    }
  }

  /** The first {@code percent}% of the document's bytes. */
  record Truncated(J doc, int percent) implements Body {
    @Override
    public byte[] bytes(long nowMs) {
      byte[] b = FuzzJson.bytes(doc, nowMs);
      return java.util.Arrays.copyOf(b, Math.max(1, Math.min(b.length - 1, b.length * percent / 100)));
    }

    @Override
    public String toString() {
      return percent + "% of " + FuzzJson.write(doc, 200);
    }
  }

  /**
   * What the answer must be: a success (2xx), a refusal (4xx, with this status and code when known), or
   * either. Never a 5xx, whatever is expected.
   */
  record Expect(Kind kind, int status, String code, String why) {
    enum Kind { SUCCESS, REFUSED, ANY }

    static Expect ok() {
      return new Expect(Kind.SUCCESS, 0, null, "");
    }

    static Expect refused(int status, String code, String why) {
      return new Expect(Kind.REFUSED, status, code, why);
    }

    static Expect refused(String why) {
      return new Expect(Kind.REFUSED, 0, null, why);
    }

    static Expect any(String why) {
      return new Expect(Kind.ANY, 0, null, why);
    }

    /** Both at once: a refusal wins; a refusal's status is kept only when nothing else could answer first. */
    Expect and(Expect o) {
      String w = why.isEmpty() ? o.why : o.why.isEmpty() ? why : why + "; " + o.why;
      if (kind == Kind.REFUSED && o.kind == Kind.REFUSED) {
        return new Expect(Kind.REFUSED, status == o.status ? status : 0,
            code != null && code.equals(o.code) ? code : null, w);
      }
      if (kind == Kind.REFUSED || o.kind == Kind.REFUSED) {
        Expect r = kind == Kind.REFUSED ? this : o;
        Expect other = kind == Kind.REFUSED ? o : this;
        return other.kind == Kind.ANY ? new Expect(Kind.REFUSED, 0, null, w) : new Expect(Kind.REFUSED, r.status,
            r.code, w);
      }
      if (kind == Kind.ANY || o.kind == Kind.ANY) {
        return new Expect(Kind.ANY, 0, null, w);
      }
      return new Expect(Kind.SUCCESS, 0, null, w);
    }

    @Override
    public String toString() {
      return switch (kind) {
        case SUCCESS -> "2xx";
        case ANY -> "2xx or 4xx (" + why + ")";
        case REFUSED -> (status == 0 ? "4xx" : Integer.toString(status)) + (code == null ? "" : " " + code)
            + " (" + why + ")";
      };
    }
  }
}
