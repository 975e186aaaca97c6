/**
 * The first start of each sandbox image, before `npm start` says Ready. The first box of an
 * image on a freshly prepared engine pays for what later boxes find done (the engine's first
 * container on its bridge, the image's files read from disk for the first time), and that
 * wait used to fall on the operator's first Browser or CLI tab, after Ready was printed.
 * Each image is started once, as the platform starts it (the guest's settings in
 * GUEST_CONFIG), until its guest answers `GET /health`, then removed.
 */
import { randomBytes } from "node:crypto";
import { run } from "./docker";

/** The local tag prepareContainerEngine builds for a Container class (engine.ts). */
export const localImageTag = (className: string) => `guilds-local/${className.toLowerCase()}:latest`;

export interface FirstStart {
  image: string;
  /** From `docker run` to the guest's first answer, in seconds. */
  seconds: number;
}

/**
 * Starts every image at once and resolves when each guest answered (or throws naming the
 * image that did not within `timeoutMs`); the containers are removed either way.
 *
 * @example await firstStarts(["guilds-local/litesandbox:latest", "guilds-local/standardsandbox:latest"])
 *          // [{ image: "guilds-local/litesandbox:latest", seconds: 0.6 }, …]
 */
export function firstStarts(images: string[], timeoutMs = 120_000): Promise<FirstStart[]> {
  return Promise.all(images.map((image) => firstStart(image, timeoutMs)));
}

async function firstStart(image: string, timeoutMs: number): Promise<FirstStart> {
  const began = Date.now();
  const config = JSON.stringify({ GUEST_TOKEN: randomBytes(24).toString("hex") });
  const started = await run("docker", ["run", "-d", "--rm", "--label", "guilds.first-start=1", "-e", `GUEST_CONFIG=${config}`, image], 60_000);
  const id = started.output.trim().split("\n").at(-1) ?? "";
  if (started.code !== 0 || !/^[0-9a-f]{12,64}$/.test(id)) throw new Error(`${image} did not start: ${started.output.trim().slice(-300)}`);
  try {
    const inspected = await run("docker", ["inspect", "--format", "{{.NetworkSettings.IPAddress}}", id], 20_000);
    const ip = inspected.output.trim();
    while (Date.now() - began < timeoutMs) {
      const answered = await fetch(`http://${ip}:8080/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (answered) return { image, seconds: (Date.now() - began) / 1000 };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${image}: its guest did not answer within ${timeoutMs / 1000} s`);
  } finally {
    await run("docker", ["rm", "-f", id], 30_000);
  }
}
