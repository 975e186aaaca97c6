import { execFileSync } from "node:child_process";

/**
 * The agent's box as the container engine shows it. workerd names a Container object's
 * container `workerd-<worker>-<class>-<object id>`; the tests tell agents apart by a
 * secret each one alone holds: its NAME is looked for among the container's variables
 * (the value is never read into the test).
 */
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();

/** Ids of running sandbox containers (not their egress sidecars) holding a variable of this name. */
export function boxesWithVariable(name: string): string[] {
  const ids = docker("ps", "--filter", "name=workerd-guilds-platform-", "--format", "{{.ID}} {{.Names}}")
    .split("\n")
    .filter((line) => line && /Sandbox-[0-9a-f]+$/.test(line))
    .map((line) => line.split(" ")[0]!);
  return ids.filter((id) => {
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
}

/** Polls until `check` holds, or fails naming what was awaited. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Removes what a stack left of its sandboxes (the egress sidecars outlive wrangler). */
export function removeSandboxContainers(ids: string[]): void {
  if (ids.length) docker("rm", "-f", ...ids);
}

/** Every container of this worker's sandboxes, sidecars included. */
export function allSandboxContainers(): string[] {
  return docker("ps", "-aq", "--filter", "name=workerd-guilds-platform-").split("\n").filter(Boolean);
}
