// @botix/sdk: the BOTIX public API client for Node.js.
export * from "./client.js";
export * from "./errors.js";
export * from "./services.js";
export * from "./walk.js";
export * from "./webhook.js";
export type { components, paths, operations } from "./generated/openapi.js";
