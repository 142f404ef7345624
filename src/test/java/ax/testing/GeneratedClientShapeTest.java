package ax.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ax.api.RouterContract;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * openapi.yaml keeps the shape that lets openapi-generator's {@code java} (native, okhttp-gson) and
 * {@code typescript-fetch} clients work with default options (issue 11). Each rule names the failure it
 * prevents; the clients under {@code clients/} are generated from this file and run against a node.
 * The rules read the document as written (before $refs are resolved), where the names are.
 */
class GeneratedClientShapeTest {
  private static final long INT32_MAX = Integer.MAX_VALUE;
  private static final Set<String> SIGNED_ERRORS = Set.of("400", "401", "408", "413", "415", "429", "500", "503");
  /** The admin API has no per-key token bucket (no 429); everything else a connection can meet applies. */
  private static final Set<String> ADMIN_ERRORS = Set.of("400", "401", "404", "408", "413", "415", "500", "503");
  /**
   * What the HTTP layer answers before any operation is matched (MalformedHttp), on every path including
   * the operators' unsigned ones: a client that meets it must find it declared (ApiFuzzIT met an
   * undeclared 431 on runTaskSync).
   */
  private static final Set<String> HTTP_LAYER_ERRORS = Set.of("414", "431");

  private static Vertx vertx;
  private static JsonObject doc;

  @BeforeAll
  static void read() {
    vertx = Vertx.vertx();
    doc = RouterContract.readPublished(vertx, "openapi.yaml").await();
  }

  @AfterAll
  static void close() {
    vertx.close().await();
  }

  /** With {@code 4XX} ranges every generated client threw an untyped exception carrying raw text. */
  @Test
  void everyErrorHasItsOwnStatusAndAProblemBody() {
    List<String> wrong = new ArrayList<>();
    operations((id, op) -> {
      JsonObject responses = op.getJsonObject("responses");
      for (String status : responses.fieldNames()) {
        if (!status.matches("[1-5][0-9][0-9]")) {
          wrong.add(id + " declares " + status + ": a range or default, not a status");
          continue;
        }
        JsonObject response = follow(responses.getJsonObject(status));
        JsonObject content = response.getJsonObject("content", new JsonObject());
        boolean healthState = id.startsWith("health") && status.equals("503");
        if (status.compareTo("400") >= 0 && !healthState && !(content.size() == 1
            && "#/components/schemas/Problem".equals(schemaRef(content, "application/problem+json")))) {
          wrong.add(id + " " + status + " is not one application/problem+json Problem: " + content.fieldNames());
        }
      }
      Set<String> layer = new TreeSet<>(HTTP_LAYER_ERRORS);
      layer.removeAll(responses.fieldNames());
      if (!layer.isEmpty()) {
        wrong.add(id + " does not declare what the HTTP layer answers: " + layer);
      }
      if (op.containsKey("security") && op.getJsonArray("security").isEmpty()) {
        return; // operators' endpoints
      }
      boolean admin = op.containsKey("security") && op.getJsonArray("security").encode().contains("adminJwt");
      Set<String> missing = new TreeSet<>(admin ? ADMIN_ERRORS : SIGNED_ERRORS);
      missing.removeAll(responses.fieldNames());
      if (!missing.isEmpty()) {
        wrong.add(id + " does not declare " + missing);
      }
    });
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  /** Generators take the lowest 2xx as the method's return type: createTask returned TaskDuplicate. */
  @Test
  void theSuccessesOfAnOperationShareOneSchema() {
    List<String> wrong = new ArrayList<>();
    operations((id, op) -> {
      Set<String> schemas = new TreeSet<>();
      JsonObject responses = op.getJsonObject("responses");
      for (String status : responses.fieldNames()) {
        JsonObject content = follow(responses.getJsonObject(status)).getJsonObject("content", new JsonObject());
        if (status.startsWith("2") && content.containsKey("application/json")) {
          schemas.add(schemaRef(content, "application/json"));
        }
      }
      if (schemas.size() > 1) {
        wrong.add(id + " answers " + schemas);
      }
    });
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  /**
   * A closed request schema makes generated models send only their own members; a {@code default}
   * makes them send it (a Java model started with timeout_ms 60000, which runTaskSync refuses).
   */
  @Test
  void requestBodiesAreClosedAndDeclareNoDefaults() {
    List<String> wrong = new ArrayList<>();
    Set<String> bodies = new TreeSet<>();
    operations((id, op) -> {
      if (op.containsKey("requestBody")) {
        String ref = schemaRef(op.getJsonObject("requestBody").getJsonObject("content"), "application/json");
        bodies.add(ref.substring(ref.lastIndexOf('/') + 1));
      }
    });
    bodies.add("TaskRequest"); // also the items of TaskBatchRequest
    JsonObject schemas = doc.getJsonObject("components").getJsonObject("schemas");
    for (String name : bodies) {
      JsonObject schema = schemas.getJsonObject(name);
      if (!Boolean.FALSE.equals(schema.getValue("additionalProperties"))) {
        wrong.add(name + " is not closed (additionalProperties: false)");
      }
      JsonObject properties = schema.getJsonObject("properties");
      for (String property : properties.fieldNames()) {
        if (properties.getJsonObject(property).containsKey("default")) {
          wrong.add(name + "." + property + " declares a default");
        }
      }
    }
    assertEquals("#/components/schemas/TaskRequest", schemas.getJsonObject("TaskBatchRequest")
        .getJsonObject("properties").getJsonObject("tasks").getJsonObject("items").getString("$ref"),
        "batch elements typed as anything: typescript-fetch sent them with camelCase members");
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  /**
   * An optional list that is not nullable starts as an empty list in generated Java models (7.17, 7.25)
   * and is sent as {@code []}; nullable, it starts unset and is left out.
   */
  @Test
  void optionalListsInRequestsAreNullable() {
    JsonObject properties = doc.getJsonObject("components").getJsonObject("schemas").getJsonObject("TaskRequest")
        .getJsonObject("properties");
    List<String> wrong = new ArrayList<>();
    for (String property : properties.fieldNames()) {
      Object type = properties.getJsonObject(property).getValue("type");
      if (type instanceof JsonArray types ? types.contains("array") && !types.contains("null") : "array".equals(type)) {
        wrong.add(property);
      }
    }
    assertTrue(wrong.isEmpty(), "lists a generated model starts as []: " + wrong);
  }

  /**
   * openapi-generator 7.10 and 7.17 confuse {@code additionalProperties: true} (or {@code {}}) with
   * {@code false}: one such schema anywhere and every closed schema became open (typescript-fetch's
   * TaskRequestToJSON spread {@code ...value}, sending taskType beside task_type). An open schema says so
   * with a described schema instead.
   */
  @Test
  void noSchemaOpensItselfWithTrueOrAnEmptySchema() {
    List<String> wrong = new ArrayList<>();
    walk(doc, "", (pointer, node) -> {
      if (node instanceof JsonObject o && o.containsKey("additionalProperties")) {
        Object a = o.getValue("additionalProperties");
        if (Boolean.TRUE.equals(a) || a instanceof JsonObject s && s.isEmpty()) {
          wrong.add(pointer);
        }
      }
    });
    assertTrue(wrong.isEmpty(), "additionalProperties true or {} at " + wrong);
  }

  /** Java generators map an integer without a format to Integer: delay_ms could not hold 24.8 days. */
  @Test
  void integersThatCanExceedInt32DeclareInt64() {
    List<String> wrong = new ArrayList<>();
    walk(doc, "", (pointer, node) -> {
      if (node instanceof JsonObject o && "integer".equals(o.getValue("type"))
          && !"int64".equals(o.getString("format"))) {
        Object max = o.getValue("maximum");
        if (!(max instanceof Number n) || n.longValue() > INT32_MAX) {
          wrong.add(pointer + " (maximum " + max + ")");
        }
      }
    });
    assertTrue(wrong.isEmpty(), "integers without format int64 that may exceed 2^31-1: " + wrong);
  }

  /** A {@code const} with no type is typed as "any" by generators (Object in Java). */
  @Test
  void everyConstHasAType() {
    List<String> wrong = new ArrayList<>();
    walk(doc.getJsonObject("components").getJsonObject("schemas"), "#/components/schemas", (pointer, node) -> {
      if (node instanceof JsonObject o && o.containsKey("const") && !o.containsKey("type") && !o.containsKey("$ref")) {
        wrong.add(pointer);
      }
    });
    assertTrue(wrong.isEmpty(), "untyped const at " + wrong);
  }

  // ---------------------------------------------------------------------------------------------

  private static void operations(BiConsumer<String, JsonObject> each) {
    JsonObject paths = doc.getJsonObject("paths");
    for (String path : paths.fieldNames()) {
      JsonObject item = paths.getJsonObject(path);
      for (String method : item.fieldNames()) {
        JsonObject op = item.getJsonObject(method);
        each.accept(op.getString("operationId"), op);
      }
    }
  }

  /** A response, or the component response it refers to. */
  private static JsonObject follow(JsonObject response) {
    String ref = response.getString("$ref");
    if (ref == null) {
      return response;
    }
    return doc.getJsonObject("components").getJsonObject("responses").getJsonObject(ref.substring(ref.lastIndexOf('/') + 1));
  }

  private static String schemaRef(JsonObject content, String mediaType) {
    JsonObject media = content.getJsonObject(mediaType);
    return media == null ? null : media.getJsonObject("schema", new JsonObject()).getString("$ref");
  }

  private static void walk(Object node, String pointer, BiConsumer<String, Object> visit) {
    visit.accept(pointer, node);
    if (node instanceof JsonObject o) {
      for (String key : o.fieldNames()) {
        walk(o.getValue(key), pointer + "/" + key.replace("~", "~0").replace("/", "~1"), visit);
      }
    } else if (node instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        walk(a.getValue(i), pointer + "/" + i, visit);
      }
    }
  }
}
