package ax.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
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
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * docker/Dockerfile and the Jib configuration (docker/jib-pom.xml) describe one image: the same
 * entrypoint, command, user, working directory, ports, environment and labels, and the version label
 * is the scheduler's version. Runs without building anything; {@link ImageConfigTest} checks what Jib
 * actually wrote.
 */
class DockerfileMatchesJibTest {
  private static final Pattern LABEL = Pattern.compile("([A-Za-z0-9._-]+)=\"([^\"]*)\"");

  @Test
  void theDockerfileAndTheJibConfigurationDescribeTheSameImage() throws Exception {
    Map<String, String> docker = dockerfileRuntimeStage(Path.of("docker/Dockerfile"));
    Element container = jibContainer(Path.of("docker/jib-pom.xml"));

    assertEquals(ImageConfigTest.ENTRYPOINT, jsonList(docker.get("ENTRYPOINT")), "Dockerfile ENTRYPOINT");
    assertEquals(ImageConfigTest.ENTRYPOINT, args(child(container, "entrypoint")), "Jib entrypoint");
    assertEquals(List.of("server"), jsonList(docker.get("CMD")), "Dockerfile CMD");
    assertEquals(List.of("server"), args(child(container, "args")), "Jib args");
    assertEquals(text(child(container, "user")), docker.get("USER"), "user");
    assertEquals(text(child(container, "workingDirectory")), docker.get("WORKDIR"), "working directory");

    Set<String> jibPorts = new TreeSet<>();
    for (Element p : children(child(container, "ports"))) {
      jibPorts.add(text(p));
    }
    assertEquals(jibPorts, new TreeSet<>(List.of(docker.get("EXPOSE").split("\\s+"))), "exposed ports");
    assertEquals(Set.of("8080", "7000", "5701"), jibPorts);

    Map<String, String> jibEnv = new LinkedHashMap<>();
    for (Element e : children(child(container, "environment"))) {
      jibEnv.put(e.getTagName(), text(e));
    }
    Map<String, String> dockerEnv = new LinkedHashMap<>();
    for (String kv : docker.get("ENV").split("\\s+")) {
      dockerEnv.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
    assertEquals(jibEnv, dockerEnv, "environment");

    Map<String, String> jibLabels = new LinkedHashMap<>();
    for (Element e : children(child(container, "labels"))) {
      jibLabels.put(e.getTagName(), text(e));
    }
    Map<String, String> dockerLabels = new LinkedHashMap<>();
    Matcher m = LABEL.matcher(docker.get("LABEL"));
    while (m.find()) {
      dockerLabels.put(m.group(1), m.group(2));
    }
    assertEquals(jibLabels.keySet(), dockerLabels.keySet(), "label names");
    String version = System.getProperty("ax.version", "0.1.0-SNAPSHOT");
    for (Map.Entry<String, String> l : jibLabels.entrySet()) {
      String d = dockerLabels.get(l.getKey())
          .replace("${VERSION}", docker.get("ARG VERSION")).replace("${REVISION}", "${ax.image.revision}");
      String j = l.getValue().replace("${project.version}", version);
      assertEquals(j, d, "label " + l.getKey());
    }
    assertEquals(version, docker.get("ARG VERSION"), "the Dockerfile's VERSION is the scheduler's version");
    assertTrue(docker.get("HEALTHCHECK").contains("/health"), "the Dockerfile's HEALTHCHECK asks /health");

    Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("docker/jib-pom.xml").toFile());
    assertEquals(version, text(child(pom.getDocumentElement(), "version")), "docker/jib-pom.xml's version");
  }

  /** The instructions after the last FROM, continuation lines joined; ARG NAME=default kept as "ARG NAME". */
  private static Map<String, String> dockerfileRuntimeStage(Path dockerfile) throws Exception {
    List<String> logical = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(dockerfile)) {
      if (current.length() == 0 && (line.isBlank() || line.stripLeading().startsWith("#"))) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
      } else {
        logical.add(current.append(line).toString().trim());
        current.setLength(0);
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String instruction : logical) {
      String word = instruction.split("\\s+", 2)[0];
      String rest = instruction.substring(word.length()).trim();
      if (word.equals("FROM")) {
        out.clear();
      } else if (word.equals("ARG") && rest.contains("=")) {
        out.put("ARG " + rest.substring(0, rest.indexOf('=')), rest.substring(rest.indexOf('=') + 1));
      } else {
        out.merge(word, rest, (a, b) -> a + " " + b);
      }
    }
    return out;
  }

  private static List<Object> jsonList(String json) {
    return new JsonArray(json).getList();
  }

  private static Element jibContainer(Path pom) throws Exception {
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    NodeList plugins = doc.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      if ("jib-maven-plugin".equals(text(child(plugin, "artifactId")))) {
        return child(child(plugin, "configuration"), "container");
      }
    }
    throw new AssertionError("no jib-maven-plugin in " + pom);
  }

  private static List<Element> children(Element e) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c) {
        out.add(c);
      }
    }
    return out;
  }

  private static Element child(Element e, String name) {
    return children(e).stream().filter(c -> c.getTagName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("<" + e.getTagName() + "> has no <" + name + ">"));
  }

  private static List<String> args(Element e) {
    return children(e).stream().map(DockerfileMatchesJibTest::text).toList();
  }

  private static String text(Element e) {
    return e.getTextContent().trim();
  }
}
