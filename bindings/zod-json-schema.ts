/**
 * What the Worker bundle answers for `zod/v4/core` (wrangler.toml [alias]). hono-openapi's
 * JSON Schema step loads that module with a dynamic `import()`, which keeps every export of
 * it in the bundle, zod's ~400 KiB of locales included; it only reads `toJSONSchema`.
 */
export { toJSONSchema } from "zod";
