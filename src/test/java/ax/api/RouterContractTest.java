package ax.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The router's document and the published openapi.yaml agree: they differ only by the problem+json
 * response bodies vertx-openapi cannot load, and the router's document has every operation, parameter,
 * request body, security requirement and status of the published one.
 */
class RouterContractTest {
  private static Vertx vertx;
  private static JsonObject published;

  @BeforeAll
  static void read() {
    vertx = Vertx.vertx();
    published = RouterContract.readPublished(vertx, "openapi.yaml").await();
  }

  @AfterAll
  static void close() {
    vertx.close().await();
  }

  /** The evidence for RouterContract: the day vertx-openapi loads the published contract, drop it. */
  @Test
  void vertxOpenApiRefusesThePublishedContract() {
    Throwable refused = assertFailure(OpenAPIContract.from(vertx, published.copy()));
    assertTrue(String.valueOf(refused.getMessage()).contains("unsupported media type"), refused.toString());
  }

  @Test
  void theRouterDocumentDiffersFromThePublishedOneByProblemBodiesOnly() {
    List<String> differences = new ArrayList<>();
    diff(published, RouterContract.derive(published), "", differences);
    String response = "(/paths/[^/]+/[a-z]+/responses/[1-5][0-9][0-9]|/components/responses/[A-Za-z]+)/content";
    List<String> others = differences.stream().filter(d -> !(d.matches(response + "/application~1problem\\+json")
        || d.matches(response) && at(published, d).fieldNames().equals(Set.of(RouterContract.PROBLEM_JSON))))
        .toList();
    assertTrue(others.isEmpty(), "differences other than problem bodies: " + others);
    assertTrue(differences.size() >= 10, "no problem bodies left out? " + differences);
  }

  @Test
  void theRouterDocumentLoadsWithEveryOperationAndStatusOfThePublishedOne() throws Exception {
    OpenAPIContract router = RouterContract.load(vertx, "openapi.yaml").await(30, TimeUnit.SECONDS);
    JsonObject paths = published.getJsonObject("paths");
    int statuses = 0;
    for (String path : paths.fieldNames()) {
      for (String method : paths.getJsonObject(path).fieldNames()) {
        JsonObject declared = paths.getJsonObject(path).getJsonObject(method);
        Operation op = router.operation(declared.getString("operationId"));
        assertEquals(path, op.getOpenAPIPath());
        assertEquals(method.toUpperCase(), op.getHttpMethod().name());
        for (String status : declared.getJsonObject("responses").fieldNames()) {
          assertTrue(op.getResponse(Integer.parseInt(status)) != null, op.getOperationId() + " " + status);
          statuses++;
        }
      }
    }
    assertEquals(paths.fieldNames().stream().mapToInt(p -> paths.getJsonObject(p).size()).sum(),
        router.operations().size());
    assertTrue(statuses > 60, "statuses seen: " + statuses);
    assertEquals(Set.of("hmacAuth"), router.getSecurityRequirements().stream()
        .flatMap(r -> r.getNames().stream()).collect(Collectors.toSet()));
  }

  private static Throwable assertFailure(io.vertx.core.Future<?> future) {
    try {
      future.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("the published contract loaded");
  }

  private static JsonObject at(JsonObject doc, String pointer) {
    JsonObject node = doc;
    for (String token : pointer.substring(1).split("/")) {
      node = node.getJsonObject(token.replace("~1", "/").replace("~0", "~"));
    }
    return node;
  }

  /** JSON pointers where {@code a} and {@code b} differ. */
  private static void diff(Object a, Object b, String pointer, List<String> out) {
    if (a instanceof JsonObject x && b instanceof JsonObject y) {
      for (String key : x.fieldNames()) {
        String at = pointer + "/" + key.replace("~", "~0").replace("/", "~1");
        if (!y.containsKey(key)) {
          out.add(at);
        } else {
          diff(x.getValue(key), y.getValue(key), at, out);
        }
      }
      for (String key : y.fieldNames()) {
        if (!x.containsKey(key)) {
          out.add(pointer + "/" + key + " (added)");
        }
      }
    } else if (a instanceof JsonArray x && b instanceof JsonArray y && x.size() == y.size()) {
      for (int i = 0; i < x.size(); i++) {
        diff(x.getValue(i), y.getValue(i), pointer + "/" + i, out);
      }
    } else if (!Objects.equals(a, b)) {
      out.add(pointer + " (changed)");
    }
  }
}
