import { SchedulesApi, TasksApi } from "./generated/apis";
import { Configuration, type FetchAPI } from "./generated/runtime";
import { problemMiddleware } from "./problems";
import { signingMiddleware } from "./signing";

export interface AxClientOptions {
  /** The node's address, e.g. http://localhost:8080 (no trailing path). */
  baseUrl: string;
  accessKey: string;
  secret: string;
  /** Another fetch (a proxy agent, a test double); the global fetch by default. */
  fetchApi?: FetchAPI;
}

/**
 * The generated TasksApi, signing every request and throwing AxProblemError for every refusal:
 *
 *   const tasks = createAxClient({ baseUrl: "http://localhost:8080", accessKey, secret });
 *   const { taskId } = await tasks.createTask({ taskRequest: { taskType: "coupon.grant", processor: "grant" } });
 */
export function createAxClient(options: AxClientOptions): TasksApi {
  return new TasksApi(configuration(options));
}

/** The generated SchedulesApi (recurring schedules), signing and throwing like createAxClient. */
export function createAxSchedulesClient(options: AxClientOptions): SchedulesApi {
  return new SchedulesApi(configuration(options));
}

function configuration(options: AxClientOptions): Configuration {
  return new Configuration({
    basePath: options.baseUrl.replace(/\/+$/, ""),
    fetchApi: options.fetchApi,
    middleware: [problemMiddleware(), signingMiddleware(options)],
  });
}
