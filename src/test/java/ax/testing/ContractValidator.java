package ax.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.SchemaRepository;
import ax.api.RouterContract;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.OpenAPIVersion;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.SchemaValidationException;
import io.vertx.openapi.validation.ValidatableResponse;
import io.vertx.openapi.validation.ValidatorException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * openapi.yaml as the judge of responses: {@link #check} says whether a status, its headers and its body
 * are what the published contract declares for an operation.
 *
 * <p>Success bodies in JSON go through vertx-openapi's {@link ResponseValidator}, the library the server's
 * router is built with, on the router's document ({@link RouterContract}: the published one less its
 * problem+json bodies, which the library cannot load). Everything else is checked here against the
 * published document itself, fully resolved, with its own schema repository: problem documents (the
 * library cannot load them), ranges if any (the library skips them) and text bodies (the library hands
 * them to the schema as bytes). There the media type must be declared, the declared headers must be
 * present when required and valid, and the body must match the schema. On top of the schemas, two rules
 * the contract states in prose are checked for every problem document: {@code status} repeats the HTTP
 * status, and {@code type} is {@code urn:ax:problem:<code>}.
 */
public final class ContractValidator implements AutoCloseable {
  private final Vertx vertx;
  private final OpenAPIContract router;
  private final ResponseValidator validator;
  /** The published document with every $ref resolved, and the repository its schemas validate with. */
  private final JsonObject published;
  private final SchemaRepository schemas;

  private ContractValidator(Vertx vertx, OpenAPIContract router, JsonObject published, SchemaRepository schemas) {
    this.vertx = vertx;
    this.router = router;
    this.validator = ResponseValidator.create(vertx, router);
    this.published = published;
    this.schemas = schemas;
  }

  /** Loads the contract from a file (tests run from the project root, so {@code "openapi.yaml"}). */
  public static ContractValidator load(String path) {
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject raw = RouterContract.readPublished(vertx, path).await(30, TimeUnit.SECONDS);
      OpenAPIContract router = OpenAPIContract.from(vertx, RouterContract.derive(raw)).await(30, TimeUnit.SECONDS);
      OpenAPIVersion version = OpenAPIVersion.fromContract(raw);
      SchemaRepository repository = version.getRepository(vertx, "app://").await(30, TimeUnit.SECONDS);
      JsonObject resolved = version.resolve(vertx, repository, raw).await(30, TimeUnit.SECONDS);
      return new ContractValidator(vertx, router, resolved, repository);
    } catch (Exception e) {
      vertx.close();
      throw new IllegalStateException("cannot load " + path, e);
    }
  }

  /** The router's contract (what vertx-openapi loads). */
  public OpenAPIContract router() {
    return router;
  }

  /** The published contract, every $ref resolved. */
  public JsonObject published() {
    return published;
  }

  /** Every operationId of the published contract. */
  public List<String> operationIds() {
    List<String> ids = new ArrayList<>();
    operations().forEach(op -> ids.add(op.getString("operationId")));
    return ids;
  }

  /** The published operation, every $ref resolved; null when there is none. */
  public JsonObject operation(String operationId) {
    return operations().stream().filter(op -> operationId.equals(op.getString("operationId"))).findFirst()
        .orElse(null);
  }

  /** The operations of the published document (the resolver adds annotations, such as "__absolute_uri__"). */
  private List<JsonObject> operations() {
    List<JsonObject> out = new ArrayList<>();
    JsonObject paths = published.getJsonObject("paths");
    for (String path : paths.fieldNames()) {
      if (paths.getValue(path) instanceof JsonObject item) {
        for (String method : item.fieldNames()) {
          if (item.getValue(method) instanceof JsonObject op && op.containsKey("operationId")) {
            out.add(op);
          }
        }
      }
    }
    return out;
  }

  /**
   * Why the response breaks the contract of {@code operationId}; empty when it does not.
   *
   * @param headers the response headers (any case); the content type is read from them
   * @param body    the raw body, or null for none
   */
  public List<String> check(String operationId, int status, Map<String, String> headers, String body) {
    JsonObject op = operation(operationId);
    if (op == null) {
      return List.of("openapi.yaml has no operation " + operationId);
    }
    // Header names are matched without regard to case, and media type parameters (`; charset=…`,
    // `; version=0.0.4`) are dropped: vertx-openapi looks both up by exact string.
    Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    byName.putAll(headers);
    String type = byName.get("content-type");
    String mediaType = type == null ? null : type.split(";", 2)[0].trim().toLowerCase();

    JsonObject declared = op.getJsonObject("responses");
    String key = declared.containsKey(Integer.toString(status)) ? Integer.toString(status)
        : declared.containsKey(status / 100 + "XX") ? status / 100 + "XX"
        : declared.containsKey("default") ? "default" : null;
    if (key == null) {
      return List.of("status " + status + " is not declared (declared: " + declared.fieldNames() + ")");
    }
    JsonObject response = declared.getJsonObject(key);
    boolean libraryReads = !key.endsWith("XX") && "application/json".equals(mediaType)
        && response.getJsonObject("content", new JsonObject()).containsKey(mediaType);
    List<String> problems = new ArrayList<>(libraryReads
        ? checkExact(operationId, status, byName, mediaType, body)
        : checkByHand(response, byName, mediaType, body));
    if ("application/problem+json".equals(mediaType) && problems.isEmpty()) {
      problems.addAll(checkProblemProse(status, body));
    }
    return problems;
  }

  /** Fails with every reason found, naming the operation, the status and the body. */
  public void assertConforms(String operationId, int status, Map<String, String> headers, String body) {
    List<String> problems = check(operationId, status, headers, body);
    if (!problems.isEmpty()) {
      throw new AssertionError(operationId + " answered " + status + " outside openapi.yaml: "
          + String.join("; ", problems) + "\n  body: " + body);
    }
  }

  private List<String> checkExact(String operationId, int status, Map<String, String> headers, String mediaType,
                                  String body) {
    ValidatableResponse response = body == null || body.isEmpty()
        ? ValidatableResponse.create(status, headers)
        : ValidatableResponse.create(status, headers, Buffer.buffer(body), mediaType);
    try {
      validator.validate(response, operationId).await(30, TimeUnit.SECONDS);
      return List.of();
    } catch (ValidatorException e) {
      List<String> out = new ArrayList<>();
      out.add(e.getMessage());
      if (e instanceof SchemaValidationException sve && sve.getOutputUnit() != null) {
        collect(sve.getOutputUnit(), out);
      }
      return out;
    } catch (Exception e) {
      return List.of(e.toString());
    }
  }

  /**
   * A response the library does not judge: a problem document (it cannot load them), a range (it skips
   * them) or a text body (it hands it on as bytes). {@code resolved} is the published response.
   */
  private List<String> checkByHand(JsonObject resolved, Map<String, String> headers, String mediaType,
                                   String body) {
    List<String> out = new ArrayList<>();
    JsonObject declaredHeaders = resolved.getJsonObject("headers", new JsonObject());
    for (String name : declaredHeaders.fieldNames()) {
      if (name.startsWith("__")) {
        continue; // the repository's own annotations
      }
      JsonObject header = declaredHeaders.getJsonObject(name);
      String value = headers.get(name);
      if (value == null) {
        if (header.getBoolean("required", false)) {
          out.add("header " + name + " is required");
        }
        continue;
      }
      JsonObject schema = header.getJsonObject("schema");
      Object typed = "integer".equals(schema.getString("type")) && value.matches("-?[0-9]{1,18}")
          ? Long.parseLong(value) : value;
      validate(schemas, schema, typed, "header " + name, out);
    }
    JsonObject content = resolved.getJsonObject("content", new JsonObject());
    if (!content.containsKey(mediaType)) {
      out.add("media type " + mediaType + " is not declared (declared: " + content.fieldNames() + ")");
      return out;
    }
    Object value = body == null ? "" : body;
    if (mediaType.equals("application/json") || mediaType.endsWith("+json")) {
      try {
        value = Json.decodeValue(body == null ? "" : body);
      } catch (DecodeException e) {
        out.add("the body is not JSON: " + e.getMessage());
        return out;
      }
    }
    validate(schemas, content.getJsonObject(mediaType).getJsonObject("schema"), value, "body", out);
    return out;
  }

  private static void validate(SchemaRepository schemas, JsonObject schema, Object value, String what,
                               List<String> out) {
    OutputUnit unit = schemas.validator(JsonSchema.of(schema)).validate(value);
    if (!Boolean.TRUE.equals(unit.getValid())) {
      out.add(what + " does not match its schema");
      collect(unit, out);
    }
  }

  private static List<String> checkProblemProse(int status, String body) {
    JsonObject problem = new JsonObject(body);
    List<String> out = new ArrayList<>();
    if (!Integer.valueOf(status).equals(problem.getInteger("status"))) {
      out.add("problem status " + problem.getValue("status") + " differs from the HTTP status " + status);
    }
    if (!("urn:ax:problem:" + problem.getString("code")).equals(problem.getString("type"))) {
      out.add("problem type " + problem.getString("type") + " is not urn:ax:problem:<code>");
    }
    return out;
  }

  /** The top-level message is often only "does not match"; the output units name the member and rule. */
  private static void collect(OutputUnit unit, List<String> out) {
    if (unit.getError() != null) {
      out.add(unit.getInstanceLocation() + " (" + unit.getKeywordLocation() + "): " + unit.getError());
    }
    if (unit.getErrors() != null) {
      unit.getErrors().forEach(u -> collect(u, out));
    }
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
