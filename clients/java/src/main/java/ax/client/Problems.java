package ax.client;

import ax.client.invoker.ApiException;
import ax.client.model.Problem;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A refusal as the typed {@link Problem} the contract declares for it. The generated okhttp-gson client
 * throws {@link ApiException} for every status it does not return normally and keeps the body as text
 * (whatever the contract says the body is), so this reads it back with the generated model.
 *
 * <pre>{@code
 * } catch (ApiException e) {
 *   Problem p = Problems.of(e).orElseThrow(() -> e);   // e.g. p.getCode() == ProblemCode.NOT_CANCELLABLE
 * }</pre>
 */
public final class Problems {
  private static final String PROBLEM_JSON = "application/problem+json";

  private Problems() {
  }

  /** The problem document of the answer; empty when there was no answer (an I/O failure) or it is not one. */
  public static Optional<Problem> of(ApiException e) {
    if (e.getCode() == 0 || e.getResponseBody() == null || !isProblem(e.getResponseHeaders())) {
      return Optional.empty();
    }
    try {
      return Optional.of(Problem.fromJson(e.getResponseBody()));
    } catch (java.io.IOException | RuntimeException notAProblem) {
      return Optional.empty();
    }
  }

  private static boolean isProblem(Map<String, List<String>> headers) {
    if (headers == null) {
      return false;
    }
    return headers.entrySet().stream()
        .filter(h -> h.getKey().equalsIgnoreCase("content-type"))
        .flatMap(h -> h.getValue().stream())
        .anyMatch(v -> v.toLowerCase(java.util.Locale.ROOT).startsWith(PROBLEM_JSON));
  }
}
