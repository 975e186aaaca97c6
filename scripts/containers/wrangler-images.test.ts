import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BASE_IMAGE, removeOrphanSidecars, removeStackContainers, run } from "./docker";
import { oneLine, prepareContainerEngine } from "./engine";
import { declaredImages } from "./wrangler-images";

describe("the local stack's container images", () => {
  it("SBX-003: reads the top-level [[containers]] Dockerfiles with their build contexts, not an environment's", () => {
    const dir = mkdtempSync(join(tmpdir(), "images-"));
    const toml = join(dir, "wrangler.toml");
    writeFileSync(
      toml,
      [
        'name = "x"',
        "[[containers]]",
        'class_name = "LiteSandbox"',
        'image = "./containers/lite/Dockerfile"',
        'image_build_context = "./containers"',
        "[[durable_objects.bindings]]",
        'name = "AGENT"',
        "[[containers]] # the browser box",
        'class_name = "StandardSandbox"',
        'image = "./containers/standard/Dockerfile"',
        "[[containers]]",
        'class_name = "Prebuilt"',
        'image = "registry.example/prebuilt:1"',
        "[[env.production.containers]]",
        'class_name = "Other"',
        'image = "./other/Dockerfile"',
      ].join("\n"),
    );
    expect(declaredImages(toml)).toEqual([
      { className: "LiteSandbox", dockerfile: join(dir, "containers/lite/Dockerfile"), context: join(dir, "containers") },
      { className: "StandardSandbox", dockerfile: join(dir, "containers/standard/Dockerfile"), context: join(dir, "containers/standard") },
    ]);
  });

  it("SBX: containers turned off answer a reason the Worker can show, and set nothing up", async () => {
    const lines: string[] = [];
    const engine = await prepareContainerEngine({ mode: "off", log: (line) => lines.push(line) });
    expect(engine).toEqual({ enabled: false, reason: "containers are turned off (GUILDS_CONTAINERS=off)", env: {} });
    expect(lines).toEqual(["sandboxes unavailable: containers are turned off (GUILDS_CONTAINERS=off)"]);
  });

  it("SBX: a failed build's reason reaches the Worker as one plain line (no colours, quotes or line breaks)", () => {
    const reason = oneLine(`building x failed: \u001b[0mThe command '/bin/sh -c curl "https://e.example"'\nreturned 60\n`);
    expect(reason).toBe("building x failed: The command /bin/sh -c curl https://e.example returned 60");
    expect(oneLine("x".repeat(1000))).toHaveLength(400);
  });

  it.skipIf(!engineAnswers())("SBX: the sweep removes a sidecar whose container is gone, and nothing else; a young one may be a box starting", async () => {
    const worker = `sweep${Date.now()}`;
    const names = [`workerd-${worker}-Box-a-proxy`, `workerd-${worker}-Box-b`, `workerd-${worker}-Box-b-proxy`];
    for (const name of names) expect((await run("docker", ["create", "--name", name, BASE_IMAGE, "true"])).code).toBe(0);
    try {
      // Just created: another stack may be starting that box (its sidecar comes first).
      expect(await removeOrphanSidecars(worker)).toBe(0);
      expect(await removeOrphanSidecars(worker, 0)).toBe(1);
      const left = await run("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `name=^workerd-${worker}-`]);
      expect(left.output.split("\n").filter(Boolean).sort()).toEqual(names.slice(1).sort());
    } finally {
      await run("docker", ["rm", "-f", ...names]);
    }
  });
});

describe("the docker command wrangler dev runs", () => {
  it.skipIf(!engineAnswers())(
    "SBX: two stacks' builds of one Dockerfile are different images, so one stack's cleanup (by image) spares the other's boxes",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "label-"));
      writeFileSync(join(dir, "Dockerfile"), `FROM ${BASE_IMAGE}\nCMD ["sleep", "30"]\n`);
      const wrapper = fileURLToPath(new URL("./docker-for-wrangler.sh", import.meta.url));
      const tag = `guilds-test/label-${Date.now()}`;
      const build = (label: string) =>
        spawnSync(wrapper, ["build", "--load", "--provenance=false", "-t", `${tag}:${label}`, "-f", join(dir, "Dockerfile"), dir], {
          env: { ...process.env, GUILDS_IMAGE_LABEL: label },
          encoding: "utf8",
        });
      const names = [`${tag.replace("/", "-")}-a`, `${tag.replace("/", "-")}-b`];
      try {
        expect(build("a").status).toBe(0);
        expect(build("b").status).toBe(0);
        const id = async (label: string) => (await run("docker", ["image", "inspect", "--format", "{{.Id}}", `${tag}:${label}`])).output.trim();
        expect(await id("a")).not.toBe(await id("b"));
        for (const [i, label] of ["a", "b"].entries()) expect((await run("docker", ["create", "--name", names[i]!, `${tag}:${label}`])).code).toBe(0);
        // wrangler dev's cleanup lists its containers with `ancestor=<its image>`.
        const ancestors = await run("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `ancestor=${tag}:a`]);
        expect(ancestors.output.split("\n").filter(Boolean)).toEqual([names[0]]);
      } finally {
        await run("docker", ["rm", "-f", ...names]);
        await run("docker", ["rmi", "-f", `${tag}:a`, `${tag}:b`]);
      }
    },
    60_000,
  );
});

describe("a stack's leftovers", () => {
  it.skipIf(!engineAnswers())("SBX: a restart removes the boxes (and sidecars) a killed stack of the same folder left, and no other stack's", async () => {
    const label = `t${Date.now()}`;
    const mine = `workerd-leftover-${label}-Box-a`;
    const other = `workerd-leftover-${label}-Box-b`;
    try {
      expect((await run("docker", ["create", "--name", mine, "--label", `guilds.stack=${label}`, BASE_IMAGE, "true"])).code).toBe(0);
      expect((await run("docker", ["create", "--name", `${mine}-proxy`, BASE_IMAGE, "true"])).code).toBe(0);
      expect((await run("docker", ["create", "--name", other, "--label", `guilds.stack=${label}x`, BASE_IMAGE, "true"])).code).toBe(0);
      expect(await removeStackContainers(label)).toBe(1);
      const left = await run("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `name=workerd-leftover-${label}-`]);
      expect(left.output.split("\n").filter(Boolean)).toEqual([other]);
    } finally {
      await run("docker", ["rm", "-f", mine, `${mine}-proxy`, other]);
    }
  });
});

function engineAnswers(): boolean {
  return spawnSync("docker", ["image", "inspect", BASE_IMAGE], { stdio: "ignore" }).status === 0;
}
