export * from "./generated";
export { createAxClient, createAxSchedulesClient, type AxClientOptions } from "./client";
export { AxProblemError, problemMiddleware } from "./problems";
export { canonicalQuery, randomNonce, signature, signingMiddleware, stringToSign, type Credentials } from "./signing";
