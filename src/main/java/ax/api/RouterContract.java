package ax.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.impl.Utils;

import java.util.Set;

/**
 * The document the OpenAPI router is built from: openapi.yaml without its {@code application/problem+json}
 * response bodies.
 *
 * <p>Why a second document: the published contract declares every error under its own status ({@code 400},
 * {@code 404}, {@code 409}…) with a typed {@code Problem} body, which is what client generators need to
 * type errors. vertx-openapi 5.0.7 refuses to load that: {@code ResponseImpl} throws "defines a response
 * with an unsupported media type" for any media type outside its list ({@code application/json},
 * {@code text/plain}, {@code application/vnd.*+json}, …), and it builds a {@code ResponseImpl} for every
 * numbered status (only {@code 4XX}-style ranges escape it). The router never validates responses, so
 * leaving those bodies out changes nothing it does: requests, parameters, security and the success
 * bodies are the published ones. RouterContractTest proves that the two documents differ by exactly
 * those bodies, and that the published one is still refused (the day it loads, this class can go).
 */
public final class RouterContract {
  /** The media type vertx-openapi cannot load in a response; every error ax answers is one. */
  public static final String PROBLEM_JSON = Problem.CONTENT_TYPE;

  private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch",
      "trace");

  private RouterContract() {
  }

  /** The router's contract, derived from the published one at {@code path} (a file or classpath resource). */
  public static Future<OpenAPIContract> load(Vertx vertx, String path) {
    return readPublished(vertx, path).compose(published -> OpenAPIContract.from(vertx, derive(published)));
  }

  /**
   * The published contract as JSON, read exactly as {@code OpenAPIContract.from(vertx, path)} reads it
   * (the library's own YAML reader: the same types for keys, numbers and timestamps).
   */
  public static Future<JsonObject> readPublished(Vertx vertx, String path) {
    return Utils.readYamlOrJson(vertx, path);
  }

  /** A copy of {@code published} with every {@code application/problem+json} response body removed. */
  public static JsonObject derive(JsonObject published) {
    JsonObject copy = published.copy();
    JsonObject paths = copy.getJsonObject("paths", new JsonObject());
    for (String path : paths.fieldNames()) {
      JsonObject item = paths.getJsonObject(path);
      for (String method : item.fieldNames()) {
        if (METHODS.contains(method)) {
          withoutProblemBodies(item.getJsonObject(method).getJsonObject("responses"));
        }
      }
    }
    JsonObject components = copy.getJsonObject("components");
    if (components != null) {
      withoutProblemBodies(components.getJsonObject("responses"));
    }
    return copy;
  }

  private static void withoutProblemBodies(JsonObject responses) {
    if (responses == null) {
      return;
    }
    for (String status : responses.fieldNames()) {
      JsonObject content = responses.getJsonObject(status).getJsonObject("content");
      if (content != null && content.remove(PROBLEM_JSON) != null && content.isEmpty()) {
        responses.getJsonObject(status).remove("content");
      }
    }
  }
}
