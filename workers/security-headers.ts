import { createMiddleware } from "hono/factory";
import { SECURITY_HEADERS } from "../core/http/security-headers";
import type { AppEnv } from "./http/context";

const apply = (headers: Headers) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!headers.has(name)) headers.set(name, value);
};

/** The security headers on every answer of the Worker, errors and proxied streams included. */
export const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  try {
    apply(c.res.headers);
  } catch {
    // A response fetched from an object or the assets binding has immutable headers.
    const copy = new Response(c.res.body, c.res);
    apply(copy.headers);
    c.res = copy;
  }
});
