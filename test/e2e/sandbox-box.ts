import { execFileSync } from "node:child_process";

/**
 * The agent's box as the container engine shows it. workerd names a Container object's
 * container `workerd-[<instance hash>-]<worker>-<class>-<object id>` (newer workerd puts the hash
 * first); the tests tell agents apart by a
 * secret each one alone holds: its NAME is looked for among the container's variables
 * (the value is never read into the test).
 */
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** Names of the boxes these tests found, so only they (and their sidecars) are removed at the end. */
const seen = new Set<string>();

/** Ids of running sandbox containers (not their egress sidecars) holding a variable of this name. */
export function boxesWithVariable(name: string): string[] {
  const listed = docker("ps", "--filter", "name=^workerd-([0-9a-f]+-)?guilds-platform-", "--format", "{{.ID}} {{.Names}}")
    .split("\n")
    .filter((line) => line && /Sandbox-[0-9a-f]+$/.test(line))
    .map((line) => line.split(" ") as [string, string]);
  const names = new Map(listed);
  const found = listed
    .map(([id]) => id)
    .filter((id) => {
      let variables: string;
      try {
        variables = docker("inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", id);
      } catch {
        return false; // removed since it was listed
      }
      return variables
        .split("\n")
        .map((line) => line.slice(0, line.indexOf("=")))
        .includes(name);
    });
  for (const id of found) seen.add(names.get(id)!);
  return found;
}

/** Polls until `check` holds, or fails naming what was awaited. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Removes what is left of the boxes these tests found: wrangler removes the boxes it
 * runs when it stops, not their egress sidecars. Other stacks' containers are left alone.
 */
export function removeSeenBoxes(): void {
  const existing = new Set(docker("ps", "-a", "--filter", "name=^workerd-([0-9a-f]+-)?guilds-platform-", "--format", "{{.Names}}").split("\n"));
  const names = [...seen].flatMap((name) => [name, `${name}-proxy`]).filter((name) => existing.has(name));
  for (const name of names) {
    try {
      docker("rm", "-f", name);
    } catch (error) {
      // workerd may be removing the same container as it stops: gone, or going, is what we want.
      if (!/No such container|already in progress/.test(String((error as { stderr?: unknown }).stderr ?? error))) throw error;
    }
  }
}

/** A WebSocket to the stack at `base` + `path`, open, with every message it receives kept. */
export async function socket(path: string, base: string, protocol?: string) {
  const url = new URL(path, base);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = protocol ? new WebSocket(url, protocol) : new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const received: Uint8Array[] = [];
  ws.addEventListener("message", (event) => received.push(typeof event.data === "string" ? new TextEncoder().encode(event.data) : new Uint8Array(event.data)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`WebSocket ${path} failed`)), { once: true });
  });
  const text = () => new TextDecoder().decode(Buffer.concat(received));
  const until = async (pattern: RegExp, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(text())) {
      if (Date.now() > deadline) throw new Error(`no ${pattern} in ${JSON.stringify(text().slice(-500))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { ws, text, until };
}
