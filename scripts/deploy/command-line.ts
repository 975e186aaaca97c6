import { join } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { ROOT } from "../stack/wrangler";

/** The Worker's configuration, whose `[env.<name>]` tables are the environments a script may name. */
export const WRANGLER_TOML = join(ROOT, "wrangler.toml");

/**
 * A script's arguments (process.argv) read by `parse` against wrangler.toml's environments.
 *
 * @example const parsed = readCommandLine(parseRollbackArgs); if (!parsed.ok) fail(parsed.message, 2);
 */
export function readCommandLine<T>(
  parse: (argv: string[], environments: string[]) => { ok: true; options: T } | { ok: false; message: string },
): { ok: true; options: T } | { ok: false; message: string } {
  const { rawConfig } = experimental_readRawConfig({ config: WRANGLER_TOML });
  return parse(process.argv.slice(2), Object.keys(rawConfig.env ?? {}));
}
