/**
 * The secret path segment `agent-cli-start` prints (SBX-024): its last non-empty line,
 * with a leading `/t/` and trailing slashes removed; null when nothing usable came out.
 *
 * @example cliSecret("ttyd started\n/t/Zk3q9XwPa1/\n") // "Zk3q9XwPa1"
 */
export function cliSecret(output: string): string | null {
  const line = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  const secret = line?.replace(/^\/?t\//, "").replace(/\/+$/, "");
  return secret && /^[A-Za-z0-9_-]{8,}$/.test(secret) ? secret : null;
}
