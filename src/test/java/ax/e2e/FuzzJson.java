package ax.e2e;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A JSON document as the fuzz writes it, which may be anything but JSON: a key twice, bytes that are
 * not UTF-8, a NUL, a lone surrogate, nesting a hundred thousand deep, a number no parser holds. Values
 * that depend on the time of sending (trigger times) are written when the request is sent, so a
 * request replayed while shrinking means the same thing.
 */
final class FuzzJson {
  private FuzzJson() {
  }

  /** A node of the document. */
  sealed interface J permits Obj, Arr, Str, RawStr, Lit, Deep, Time, Repeat {
  }

  /** An object; {@code members} may name a key twice (the writer keeps both). */
  record Obj(List<Member> members) implements J {
    Obj with(String key, J value) {
      List<Member> m = new ArrayList<>(members);
      m.add(new Member(new Str(key), value));
      return new Obj(m);
    }

    /** Replaces every member named {@code key} (or adds it). */
    Obj put(String key, J value) {
      List<Member> m = new ArrayList<>();
      boolean done = false;
      for (Member x : members) {
        if (x.key() instanceof Str s && s.text().equals(key)) {
          if (!done) {
            m.add(new Member(x.key(), value));
            done = true;
          }
        } else {
          m.add(x);
        }
      }
      if (!done) {
        m.add(new Member(new Str(key), value));
      }
      return new Obj(m);
    }

    Obj without(String key) {
      List<Member> m = new ArrayList<>(members);
      m.removeIf(x -> x.key() instanceof Str s && s.text().equals(key));
      return new Obj(m);
    }

    J get(String key) {
      for (Member x : members) {
        if (x.key() instanceof Str s && s.text().equals(key)) {
          return x.value();
        }
      }
      return null;
    }

    Obj map(String key, UnaryOperator<J> f) {
      J v = get(key);
      return v == null ? this : put(key, f.apply(v));
    }

    @Override
    public String toString() {
      return write(this, 200);
    }
  }

  /** A member; the key is a {@link Str} or a {@link RawStr}. */
  record Member(J key, J value) {
  }

  record Arr(List<J> items) implements J {
    @Override
    public String toString() {
      return write(this, 200);
    }
  }

  /** A string, written with JSON escapes where JSON needs them and for every char below 0x20 and every surrogate. */
  record Str(String text) implements J {
    @Override
    public String toString() {
      return write(this, 120);
    }
  }

  /** A string whose bytes between the quotes are written exactly as given (invalid UTF-8, raw control characters). */
  record RawStr(byte[] bytes) implements J {
    @Override
    public String toString() {
      return "RawStr(" + escape(bytes, 60) + ")";
    }
  }

  /** Written verbatim: a number, {@code true}, {@code null} — or garbage. */
  record Lit(String text) implements J {
    @Override
    public String toString() {
      return text.length() > 80 ? text.substring(0, 80) + "…(" + text.length() + " chars)" : text;
    }
  }

  /** {@code depth} arrays (or objects {@code {"a":…}}) nested around {@code 1}. */
  record Deep(int depth, boolean objects) implements J {
  }

  /** An RFC 3339-ish time, {@code offsetMs} from the moment of sending, in one of {@link #TIME_FORMATS}. */
  record Time(long offsetMs, int format) implements J {
  }

  /** {@code item} written {@code times} times as the elements of an array. */
  record Repeat(J item, int times) implements J {
  }

  /**
   * The ways a {@link Time} is written: the first {@link #VALID_TIME_FORMATS} are RFC 3339 with an
   * offset as java.time reads it; the last ({@code t} and {@code z} in lower case) RFC 3339 allows too.
   */
  static final List<String> TIME_FORMATS = List.of("ms-Z", "s-Z", "ns-Z", "ms+05:30", "ms-08:00", "us+00:00",
      "1digit-Z", "lower");
  static final int VALID_TIME_FORMATS = 7;

  static String time(long epochMs, int format) {
    Instant at = Instant.ofEpochMilli(epochMs);
    return switch (TIME_FORMATS.get(Math.floorMod(format, TIME_FORMATS.size()))) {
      case "s-Z" -> DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC).format(at);
      case "ns-Z" -> DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'000789Z'").withZone(ZoneOffset.UTC)
          .format(at);
      case "ms+05:30" -> OffsetDateTime.ofInstant(at, ZoneOffset.ofHoursMinutes(5, 30))
          .format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx"));
      case "ms-08:00" -> OffsetDateTime.ofInstant(at, ZoneOffset.ofHours(-8))
          .format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx"));
      case "us+00:00" -> DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'123+00:00'")
          .withZone(ZoneOffset.UTC).format(at);
      case "lower" -> DateTimeFormatter.ofPattern("uuuu-MM-dd't'HH:mm:ss.SSS'z'").withZone(ZoneOffset.UTC).format(at);
      case "1digit-Z" -> DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.S'Z'").withZone(ZoneOffset.UTC)
          .format(at);
      default -> DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC).format(at);
    };
  }

  static Obj obj() {
    return new Obj(List.of());
  }

  static Str str(String s) {
    return new Str(s);
  }

  static Lit num(String literal) {
    return new Lit(literal);
  }

  static Lit num(long n) {
    return new Lit(Long.toString(n));
  }

  /** The document's bytes as sent at {@code nowMs}. */
  static byte[] bytes(J j, long nowMs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(j, out, nowMs);
    return out.toByteArray();
  }

  private static void write(J j, ByteArrayOutputStream out, long nowMs) {
    if (j instanceof Obj o) {
      out.write('{');
      boolean first = true;
      for (Member m : o.members()) {
        if (!first) {
          out.write(',');
        }
        first = false;
        write(m.key(), out, nowMs);
        out.write(':');
        write(m.value(), out, nowMs);
      }
      out.write('}');
    } else if (j instanceof Arr a) {
      out.write('[');
      for (int i = 0; i < a.items().size(); i++) {
        if (i > 0) {
          out.write(',');
        }
        write(a.items().get(i), out, nowMs);
      }
      out.write(']');
    } else if (j instanceof Str s) {
      out.writeBytes(quote(s.text()).getBytes(StandardCharsets.UTF_8));
    } else if (j instanceof RawStr r) {
      out.write('"');
      out.writeBytes(r.bytes());
      out.write('"');
    } else if (j instanceof Lit l) {
      out.writeBytes(l.text().getBytes(StandardCharsets.ISO_8859_1));
    } else if (j instanceof Deep d) {
      byte[] open = d.objects() ? "{\"a\":".getBytes(StandardCharsets.US_ASCII) : new byte[] {'['};
      for (int i = 0; i < d.depth(); i++) {
        out.writeBytes(open);
      }
      out.write('1');
      for (int i = 0; i < d.depth(); i++) {
        out.write(d.objects() ? '}' : ']');
      }
    } else if (j instanceof Time t) {
      out.writeBytes(quote(time(nowMs + t.offsetMs(), t.format())).getBytes(StandardCharsets.UTF_8));
    } else if (j instanceof Repeat r) {
      out.write('[');
      byte[] one = bytes(r.item(), nowMs);
      for (int i = 0; i < r.times(); i++) {
        if (i > 0) {
          out.write(',');
        }
        out.writeBytes(one);
      }
      out.write(']');
    }
  }

  /** A JSON string literal; surrogates are written as {@code \\uXXXX} so a lone one survives. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  /** A short printable form of a node for failure messages. */
  static String write(J j, int max) {
    byte[] b = bytes(j, 0);
    return escape(b, max);
  }

  /** Bytes as text: printable ASCII as is, everything else as \xNN; cut at {@code max} bytes. */
  static String escape(byte[] b, int max) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.min(b.length, max); i++) {
      int c = b[i] & 0xFF;
      if (c >= 0x20 && c < 0x7F && c != '\\') {
        s.append((char) c);
      } else {
        s.append(String.format("\\x%02x", c));
      }
    }
    if (b.length > max) {
      s.append("…(").append(b.length).append(" bytes)");
    }
    return s.toString();
  }
}
