/** guilds-code's argument checks, shared by the subcommands (a failure exits 2 with `usage`). */

export class UsageError extends Error {}

/** `--key value` pairs; every key must be one the subcommand knows. */
export function parseFlags(args: string[], known: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]!;
    const value = args[i + 1];
    if (!key.startsWith("--") || !known.includes(key.slice(2))) throw new UsageError(`unknown argument ${key}`);
    if (value === undefined) throw new UsageError(`${key} needs a value`);
    flags[key.slice(2)] = value;
  }
  return flags;
}

export function required(flags: Record<string, string>, key: string, pattern?: RegExp): string {
  const value = flags[key];
  if (value === undefined || value === "") throw new UsageError(`--${key} is required`);
  if (pattern && !pattern.test(value)) throw new UsageError(`--${key} must match ${pattern}`);
  return value;
}

/** The flag's value when given (then it must match), else undefined. */
export function optional(flags: Record<string, string>, key: string, pattern?: RegExp): string | undefined {
  return flags[key] === undefined ? undefined : required(flags, key, pattern);
}

export function positiveInt(flags: Record<string, string>, key: string, fallback: number): number {
  if (flags[key] === undefined) return fallback;
  const value = Number(flags[key]);
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${key} must be a positive integer`);
  return value;
}

/** One line of text: no line break and no NUL. */
export const ONE_LINE = /^[^\n\r\0]+$/;
