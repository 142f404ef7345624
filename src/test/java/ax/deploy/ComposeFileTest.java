package ax.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker/compose.yaml configures ax only through variables the README documents, forms one cluster
 * whose member list matches its nodes, starts in order of health, and takes its secrets from
 * docker/.env, which git ignores and docker/.env.example describes. The file's syntax is checked by
 * {@code docker-compose config} in .ci/run.
 */
class ComposeFileTest {
  private static final Pattern AX_VAR = Pattern.compile("\\bAX_[A-Z0-9_]+\\b");
  /** ${NAME}, ${NAME:-default}, ${NAME:?message}; $$ is a literal dollar. */
  private static final Pattern INTERPOLATION = Pattern.compile("(?<!\\$)\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?][^}]*)?}");

  private final Map<String, Object> compose = load(Path.of("docker/compose.yaml"));
  private final Map<String, Map<String, Object>> services = map(compose.get("services"));

  @Test
  void everyAxVariableTheComposeFileSetsIsOneTheReadmeDocuments() throws IOException {
    Set<String> table = configurationTable();
    String readme = Files.readString(Path.of("README.md"));
    assertTrue(table.size() > 40, "the README's Configuration table was not found: " + table);
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      for (String name : environment(s.getValue()).keySet()) {
        if (!name.startsWith("AX_")) {
          continue;
        }
        if (isNode(s.getValue())) {
          assertTrue(table.contains(name), s.getKey() + " sets " + name + ", which the README's Configuration table does not list");
        } else {
          assertTrue(readme.contains("`" + name + "`"), s.getKey() + " sets " + name + ", which the README does not mention");
        }
      }
    }
    assertTrue(services.values().stream().filter(ComposeFileTest::isNode).count() >= 3, "three ax nodes");
  }

  @Test
  void theNodesFormOneClusterOfExactlyTheirOwnAddresses() {
    Set<String> members = new TreeSet<>();
    Set<String> expected = new TreeSet<>();
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      if (!isNode(s.getValue())) {
        continue;
      }
      Map<String, String> env = environment(s.getValue());
      String host = env.get("AX_CLUSTER_HOST");
      assertNotNull(host, s.getKey() + " needs AX_CLUSTER_HOST (Hazelcast binds to one interface; the default is 127.0.0.1)");
      Map<String, Object> networks = map(s.getValue().get("networks"));
      String address = networks.values().stream().map(n -> (String) map(n).get("ipv4_address")).findFirst().orElse(null);
      assertEquals(address, host, s.getKey() + ": AX_CLUSTER_HOST must be the node's fixed address");
      expected.add(host + ":" + env.getOrDefault("AX_CLUSTER_PORT", "5701"));
      members.add(env.get("AX_CLUSTER_MEMBERS"));
      assertEquals(s.getKey(), env.get("AX_NODE_ID"), "each node names itself after its service");
    }
    assertEquals(1, members.size(), "every node lists the same members: " + members);
    assertEquals(expected, new TreeSet<>(List.of(members.iterator().next().split(","))));
  }

  @Test
  void servicesStartInOrderOfHealth() {
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      Object dependsOn = s.getValue().get("depends_on");
      if (dependsOn == null) {
        continue;
      }
      for (Map.Entry<String, Object> d : map(dependsOn).entrySet()) {
        assertEquals("service_healthy", map(d.getValue()).get("condition"), s.getKey() + " → " + d.getKey());
        assertNotNull(services.get(d.getKey()), s.getKey() + " depends on unknown " + d.getKey());
        assertNotNull(services.get(d.getKey()).get("healthcheck"), d.getKey() + " has no health check to wait for");
      }
    }
    for (String name : List.of("postgres", "redis", "prometheus", "grafana")) {
      assertNotNull(services.get(name), name);
      assertNotNull(services.get(name).get("healthcheck"), name + " has a health check");
    }
    services.forEach((name, s) -> {
      if (isNode(s)) {
        assertTrue(String.valueOf(map(s.get("healthcheck")).get("test")).contains("/health"), name + " checks /health");
      }
    });
  }

  @Test
  void prometheusScrapesEveryNode() throws IOException {
    Map<String, Object> prometheus = load(Path.of("docker/prometheus/prometheus.yml"));
    Set<String> targets = new TreeSet<>();
    for (Object job : (List<?>) prometheus.get("scrape_configs")) {
      for (Object sc : (List<?>) map(job).get("static_configs")) {
        for (Object t : (List<?>) map(sc).get("targets")) {
          targets.add((String) t);
        }
      }
    }
    Set<String> nodes = new TreeSet<>();
    services.forEach((name, s) -> {
      if (isNode(s)) {
        nodes.add(name + ":" + environment(s).getOrDefault("AX_HTTP_PORT", "8080"));
      }
    });
    assertEquals(nodes, targets);
  }

  @Test
  void secretsComeFromAnIgnoredEnvFileThatTheExampleDescribes() throws IOException {
    String text = Files.readString(Path.of("docker/compose.yaml"));
    Map<String, String> example = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("docker/.env.example"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        example.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
    }
    Matcher m = INTERPOLATION.matcher(text);
    List<String> used = new ArrayList<>();
    while (m.find()) {
      used.add(m.group(1));
      assertTrue(example.containsKey(m.group(1)), "docker/.env.example does not describe " + m.group(1));
      if (m.group(1).startsWith("AX_")) {
        assertTrue(configurationTable().contains(m.group(1)), m.group(1) + " is not in the README's Configuration table");
      }
    }
    for (String secret : List.of("POSTGRES_PASSWORD", "AX_EXECUTOR_JWT_SECRET", "AX_BOOTSTRAP_KEY", "AX_MASTER_KEY",
        "GRAFANA_ADMIN_PASSWORD", "JAVA_EXECUTOR_TOKEN", "PYTHON_EXECUTOR_TOKEN")) {
      assertTrue(used.contains(secret), secret + " comes from docker/.env");
      assertTrue(text.contains("${" + secret + ":?"), secret + " has no default in the compose file: it must be set");
    }
    assertFalse(text.contains("PASSWORD: \""), "no literal password in the compose file");
    assertTrue(Files.readAllLines(Path.of(".gitignore")).contains("docker/.env"), ".gitignore must hold docker/.env");
  }

  /** A service that runs the image's own entrypoint (`ax server`), not an executor or a third-party server. */
  private static boolean isNode(Map<String, Object> service) {
    return String.valueOf(service.get("image")).contains("IMAGE") && !service.containsKey("entrypoint");
  }

  private static Map<String, String> environment(Map<String, Object> service) {
    Map<String, String> out = new LinkedHashMap<>();
    Object env = service.get("environment");
    if (env instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    } else if (env instanceof List<?> l) {
      for (Object kv : l) {
        String s = String.valueOf(kv);
        out.put(s.contains("=") ? s.substring(0, s.indexOf('=')) : s, s.contains("=") ? s.substring(s.indexOf('=') + 1) : "");
      }
    }
    return out;
  }

  /** The variables of the README's "## Configuration" table (first column). */
  static Set<String> configurationTable() throws IOException {
    Set<String> out = new TreeSet<>();
    boolean in = false;
    for (String line : Files.readAllLines(Path.of("README.md"))) {
      if (line.startsWith("## ")) {
        in = line.equals("## Configuration");
      } else if (in && line.startsWith("| `")) {
        Matcher m = AX_VAR.matcher(line.split("\\|")[1]);
        while (m.find()) {
          out.add(m.group());
        }
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static <V> Map<String, V> map(Object o) {
    assertTrue(o instanceof Map, "expected a mapping, got " + o);
    return (Map<String, V>) o;
  }

  private static Map<String, Object> load(Path p) {
    try (Reader r = Files.newBufferedReader(p)) {
      return new Yaml().load(r);
    } catch (IOException e) {
      throw new AssertionError("cannot read " + p, e);
    }
  }
}
