import { parseArgs } from "node:util";

/** The local stack: its database (.local/stack.json) and its key file (.local/secrets-kek). */
export const LOCAL_ENV = "local";

/**
 * Reads `npm run secrets:rotate` arguments, or names what is wrong with them.
 *
 * @example parseRotateArgs(["--env", "production"], ["staging", "production"]) // { ok: true, env: "production" }
 */
export function parseRotateArgs(argv: string[], environments: string[]): { ok: true; env: string } | { ok: false; message: string } {
  let values: { env?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { env: { type: "string", short: "e" } }, strict: true, allowPositionals: false }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const known = [...environments, LOCAL_ENV].join(", ");
  if (!values.env) return { ok: false, message: `--env is required (${known})` };
  if (values.env !== LOCAL_ENV && !environments.includes(values.env))
    return { ok: false, message: `--env ${values.env} is not an environment of wrangler.toml (it has: ${known})` };
  return { ok: true, env: values.env };
}
