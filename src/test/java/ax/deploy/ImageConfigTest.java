package ax.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The container image that {@code scripts/image.sh} builds with Jib (no Docker engine), read from its
 * tarball as {@code docker load} would: the index (OCI) or manifest (Docker), the config blob, and the
 * files of its layers. It must start {@code server} with the container-aware JVM flags, run as a
 * non-root numeric user, expose the API, bridge and cluster ports, carry the OCI labels, and hold a Java
 * runtime that can run there.
 *
 * <p>The tarball is {@code -Dax.image.tar=FILE} (then it must exist: .ci/run builds it first), else
 * {@code target/jib-image.tar} when present; without either the test is skipped, as in a plain
 * {@code mvn verify}, which does not build the image. {@link DockerfileMatchesJibTest} keeps
 * docker/Dockerfile in step with the Jib configuration without any tarball.
 */
class ImageConfigTest {
  static final List<String> ENTRYPOINT = List.of("/opt/java/bin/java", "-XX:MaxRAMPercentage=75.0",
      "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/ax.jar");

  @Test
  void theImageStartsAServerAsANonRootUserWithItsPortsAndLabels() throws Exception {
    Image image = Image.read(tarball());
    JsonObject config = image.config.getJsonObject("config");
    assertEquals("linux", image.config.getString("os"));
    assertEquals(ENTRYPOINT, config.getJsonArray("Entrypoint").getList());
    assertEquals(List.of("server"), config.getJsonArray("Cmd").getList());

    String user = config.getString("User");
    assertTrue(user != null && user.matches("[0-9]+(:[0-9]+)?"), "User must be numeric uid[:gid], is " + user);
    assertTrue(Integer.parseInt(user.split(":")[0]) > 0, "the image must not run as root: " + user);

    Set<String> ports = config.getJsonObject("ExposedPorts").fieldNames();
    // AX_HTTP_PORT and AX_BRIDGE_PORT defaults (README, Configuration), and AX_CLUSTER_PORT's
    assertEquals(Set.of("8080/tcp", "7000/tcp", "5701/tcp"), ports);

    JsonObject labels = config.getJsonObject("Labels");
    assertEquals("ax", labels.getString("org.opencontainers.image.title"));
    assertEquals(System.getProperty("ax.version", "0.1.0-SNAPSHOT"), labels.getString("org.opencontainers.image.version"));
    assertEquals("Apache-2.0", labels.getString("org.opencontainers.image.licenses"));
    assertNotNull(labels.getString("org.opencontainers.image.description"));
    String revision = labels.getString("org.opencontainers.image.revision");
    assertTrue(revision != null && (revision.matches("[0-9a-f]{40}") || revision.equals("unknown")), revision);

    List<Object> env = config.getJsonArray("Env").getList();
    assertTrue(env.contains("JAVA_HOME=/opt/java"), env.toString());
    assertTrue(env.contains("PATH=/opt/java/bin:/bin"), env.toString());
  }

  @Test
  void theImageHoldsARuntimeTheUserCanRunAndNothingElseOfTheBuildMachine() throws Exception {
    Image image = Image.read(tarball());
    Map<String, TarEntry> files = image.files();
    for (String executable : List.of("opt/java/bin/java", "bin/busybox", "lib64/ld-linux-x86-64.so.2")) {
      if (executable.startsWith("lib64/") && !image.config.getString("architecture").equals("amd64")) {
        continue;
      }
      TarEntry e = files.get(executable);
      assertNotNull(e, executable + " is not in the image");
      assertEquals(0755, e.mode & 0777, executable + " must be executable by everyone, mode " + Integer.toOctalString(e.mode));
    }
    assertTrue(files.containsKey("app/ax.jar"), "app/ax.jar");
    assertTrue(files.containsKey("app/ax-java-executor-example.jar"), "app/ax-java-executor-example.jar");
    assertTrue(files.get("opt/java/lib/security/cacerts").size > 10_000, "the runtime needs CA certificates for HTTPS");
    TarEntry sharedClasses = files.get("opt/java/lib/server/classes.jsa");
    assertTrue(sharedClasses != null && sharedClasses.size > 1_000_000,
        "the runtime needs its class-data sharing archive (jlink --generate-cds-archive): faster starts, and the base"
            + " an archive of ax's classes needs");
    TarEntry tmp = files.get("tmp");
    assertNotNull(tmp, "/tmp");
    assertEquals(0777, tmp.mode & 0777, "/tmp must be writable by the user ax");
    String passwd = new String(image.fileContent("etc/passwd"), StandardCharsets.UTF_8);
    String uid = image.config.getJsonObject("config").getString("User").split(":")[0];
    assertTrue(passwd.lines().anyMatch(l -> l.split(":")[2].equals(uid)), "/etc/passwd must name uid " + uid + ":\n" + passwd);
    assertFalse(files.keySet().stream().anyMatch(f -> f.startsWith("usr/share/doc") || f.startsWith("var/lib/apt")),
        "the image is built from scratch: no distribution leftovers");
  }

  private static Path tarball() {
    String given = System.getProperty("ax.image.tar");
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      assertTrue(Files.isRegularFile(p), "-Dax.image.tar=" + given + " does not exist: run scripts/image.sh first");
      return p;
    }
    Path p = Path.of("target/jib-image.tar");
    Assumptions.assumeTrue(Files.isRegularFile(p),
        "target/jib-image.tar is not built (scripts/image.sh; .ci/run builds and checks it)");
    return p;
  }

  /** The image in a tarball: its config, and its layers (read when asked). */
  static final class Image {
    final Path tar;
    final JsonObject config;
    final List<String> layers;

    private Image(Path tar, JsonObject config, List<String> layers) {
      this.tar = tar;
      this.config = config;
      this.layers = layers;
    }

    static Image read(Path tar) throws IOException {
      Map<String, byte[]> small = new HashMap<>();
      try (InputStream in = Files.newInputStream(tar)) {
        Tar.each(in, (e, body) -> {
          if (e.size < (1 << 20) && e.isFile()) {
            small.put(e.name, body.readAllBytes());
          }
        });
      }
      if (small.containsKey("index.json")) { // OCI image layout
        JsonObject index = new JsonObject(new String(small.get("index.json"), StandardCharsets.UTF_8));
        JsonObject manifest = json(small, blob(index.getJsonArray("manifests").getJsonObject(0).getString("digest")));
        JsonObject config = json(small, blob(manifest.getJsonObject("config").getString("digest")));
        List<String> layers = new ArrayList<>();
        for (Object l : manifest.getJsonArray("layers")) {
          layers.add(blob(((JsonObject) l).getString("digest")));
        }
        return new Image(tar, config, layers);
      }
      assertTrue(small.containsKey("manifest.json"), "neither index.json nor manifest.json in " + tar + ": " + small.keySet());
      JsonObject manifest = new JsonArray(new String(small.get("manifest.json"), StandardCharsets.UTF_8)).getJsonObject(0);
      List<String> layers = new ArrayList<>();
      manifest.getJsonArray("Layers").forEach(l -> layers.add((String) l));
      return new Image(tar, json(small, manifest.getString("Config")), layers);
    }

    private static String blob(String digest) {
      return "blobs/" + digest.replace(':', '/');
    }

    private static JsonObject json(Map<String, byte[]> files, String name) {
      byte[] b = files.get(name);
      assertNotNull(b, name + " is not in the tarball");
      return new JsonObject(new String(b, StandardCharsets.UTF_8));
    }

    /** Every path in the image's layers (no leading slash), the later layer winning. */
    Map<String, TarEntry> files() throws IOException {
      Map<String, TarEntry> out = new HashMap<>();
      eachLayerEntry((e, body) -> out.put(e.name, e));
      return out;
    }

    byte[] fileContent(String name) throws IOException {
      byte[][] found = new byte[1][];
      eachLayerEntry((e, body) -> {
        if (e.name.equals(name)) {
          found[0] = body.readAllBytes();
        }
      });
      assertNotNull(found[0], name + " is not in the image");
      return found[0];
    }

    private void eachLayerEntry(Tar.Visitor visitor) throws IOException {
      for (String layer : layers) {
        try (InputStream in = Files.newInputStream(tar)) {
          Tar.each(in, (e, body) -> {
            if (e.name.equals(layer)) {
              Tar.each(new GZIPInputStream(body, 1 << 16), (inner, innerBody) -> {
                String n = inner.name.replaceFirst("^\\./", "").replaceFirst("^/", "").replaceFirst("/$", "");
                visitor.visit(new TarEntry(n, inner.mode, inner.size, inner.type), innerBody);
              });
            }
          });
        }
      }
    }
  }

  record TarEntry(String name, int mode, long size, char type) {
    boolean isFile() {
      return type == '0' || type == '\0';
    }
  }

  /** A plain ustar reader: enough for the tarballs Jib writes (PAX headers are skipped, not applied). */
  static final class Tar {
    interface Visitor {
      void visit(TarEntry entry, InputStream body) throws IOException;
    }

    static void each(InputStream in, Visitor visitor) throws IOException {
      byte[] header = new byte[512];
      String paxPath = null;
      while (readFully(in, header)) {
        if (isZero(header)) {
          return;
        }
        String name = text(header, 0, 100);
        String prefix = text(header, 345, 155);
        if (!prefix.isEmpty()) {
          name = prefix + "/" + name;
        }
        int mode = (int) octal(header, 100, 8);
        long size = octal(header, 124, 12);
        char type = (char) header[156];
        Bounded body = new Bounded(in, size);
        if (type == 'x') {
          paxPath = paxPath(body.readAllBytes());
        } else if (type != 'g' && type != 'L') {
          if (paxPath != null) {
            name = paxPath;
            paxPath = null;
          }
          visitor.visit(new TarEntry(name, mode, size, type), body);
        }
        body.skipRest();
        long pad = (512 - size % 512) % 512;
        in.skipNBytes(pad);
      }
    }

    private static String paxPath(byte[] pax) {
      for (String record : new String(pax, StandardCharsets.UTF_8).split("\n")) {
        int space = record.indexOf(' ');
        if (space > 0 && record.startsWith("path=", space + 1)) {
          return record.substring(space + 6);
        }
      }
      return null;
    }

    private static boolean readFully(InputStream in, byte[] b) throws IOException {
      int n = in.readNBytes(b, 0, b.length);
      if (n == 0) {
        return false;
      }
      if (n < b.length) {
        throw new IOException("truncated tar header");
      }
      return true;
    }

    private static boolean isZero(byte[] b) {
      for (byte x : b) {
        if (x != 0) {
          return false;
        }
      }
      return true;
    }

    private static String text(byte[] b, int off, int len) {
      int end = off;
      while (end < off + len && b[end] != 0) {
        end++;
      }
      return new String(b, off, end - off, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] b, int off, int len) {
      String s = text(b, off, len).trim();
      return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    }
  }

  /** The body of one tar entry: at most its size, and the rest skipped afterwards. */
  private static final class Bounded extends InputStream {
    private final InputStream in;
    private long left;

    Bounded(InputStream in, long size) {
      this.in = in;
      this.left = size;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public void close() {
      // the outer stream stays open
    }

    void skipRest() throws IOException {
      in.skipNBytes(left);
      left = 0;
    }
  }
}
