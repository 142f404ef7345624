import { ProblemFromJSON, type Problem } from "./generated/models";
import type { Middleware, ResponseContext } from "./generated/runtime";

/**
 * A refusal as the typed Problem the contract declares for it (RFC 9457, application/problem+json), so
 * callers switch on `problem.code` instead of parsing a ResponseError's body themselves.
 */
export class AxProblemError extends Error {
  override name = "AxProblemError";

  constructor(readonly problem: Problem, readonly status: number) {
    super(`${status} ${problem.code}: ${problem.detail}`);
  }
}

/** A typescript-fetch middleware that throws AxProblemError for every problem+json answer. */
export function problemMiddleware(): Middleware {
  return {
    async post(context: ResponseContext): Promise<Response> {
      const response = context.response;
      const type = (response.headers.get("content-type") ?? "").toLowerCase();
      if (response.status >= 400 && type.startsWith("application/problem+json")) {
        throw new AxProblemError(ProblemFromJSON(await response.clone().json()), response.status);
      }
      return response;
    },
  };
}
