import { describe, expect, it } from "vitest";
import { type Deployment, parseSteps, type RolloutPlatform, rollbackTarget, rollout, stepTraffic, type UploadResult, type VersionTraffic } from "./rollout";

/** A platform that records what the rollout asked of it; checks fail from a given step on. */
function fakePlatform(options: {
  current?: Deployment | null;
  upload?: UploadResult | Error;
  healthFailsAt?: number;
  smokeFailsAt?: number;
  deployFailsAt?: number;
  checkable?: string;
}) {
  const deployed: VersionTraffic[][] = [];
  const calls: string[] = [];
  const share = () => deployed.at(-1)?.[0]?.percentage ?? 0;
  const platform: RolloutPlatform = {
    currentDeployment: async () => (options.current === undefined ? { versions: [{ version_id: "old", percentage: 100 }] } : options.current),
    checkable: () => options.checkable ?? null,
    upload: async () => {
      calls.push("upload");
      if (options.upload instanceof Error) throw options.upload;
      return options.upload ?? { versionId: "new" };
    },
    deployAtOnce: async () => {
      calls.push("deploy-at-once");
      if (options.deployFailsAt === 100) throw new Error("API said no");
      deployed.push([{ version_id: "whole", percentage: 100 }]);
      return "whole";
    },
    deploy: async (traffic) => {
      if (traffic[0]?.version_id === "new" && traffic[0].percentage === options.deployFailsAt) throw new Error("API said no");
      deployed.push(traffic);
    },
    health: async (id) => {
      calls.push(`health ${id} ${share()}`);
      return options.healthFailsAt !== undefined && share() >= options.healthFailsAt ? 'status is degraded, expected ok ({"missing":["SECRETS_KEK"]})' : null;
    },
    smoke: async (id) => {
      calls.push(`smoke ${id} ${share()}`);
      return options.smokeFailsAt !== undefined && share() >= options.smokeFailsAt ? "the run ended with model.error" : null;
    },
    soak: async () => {
      calls.push("soak");
    },
    log: () => {},
  };
  return { platform, deployed, calls };
}

describe("gradual rollout", () => {
  it("goes 10%, 50%, then 100% as a whole deploy (which carries the Containers), with health and a smoke run after each step", async () => {
    const { platform, deployed, calls } = fakePlatform({});
    expect(await rollout(platform, [10, 50, 100])).toEqual({ ok: true, versionId: "whole", steps: [10, 50, 100] });
    expect(deployed).toEqual([stepTraffic("new", "old", 10), stepTraffic("new", "old", 50), [{ version_id: "whole", percentage: 100 }]]);
    expect(calls).toEqual([
      "upload",
      "health new 10",
      "smoke new 10",
      "soak",
      "health new 50",
      "smoke new 50",
      "soak",
      "deploy-at-once",
      "health whole 100",
      "smoke whole 100",
    ]);
  });

  it("deploys one step of 100% whole, without an upload, and still rolls back on failure", async () => {
    const { platform, deployed, calls } = fakePlatform({ smokeFailsAt: 100 });
    expect(await rollout(platform, [100])).toMatchObject({ ok: false, versionId: "whole", rolledBackTo: "old" });
    expect(calls[0]).toBe("deploy-at-once");
    expect(deployed).toEqual([[{ version_id: "whole", percentage: 100 }], [{ version_id: "old", percentage: 100 }]]);
  });

  it("stops at the first failed smoke run and puts the previous version back at 100%", async () => {
    const { platform, deployed } = fakePlatform({ smokeFailsAt: 10 });
    const result = await rollout(platform, [10, 50, 100]);
    expect(result).toEqual({ ok: false, problem: "at 10%, smoke run: the run ended with model.error", versionId: "new", rolledBackTo: "old" });
    expect(deployed).toEqual([stepTraffic("new", "old", 10), [{ version_id: "old", percentage: 100 }]]);
  });

  it("fails on a degraded health report and rolls back", async () => {
    const { platform, deployed } = fakePlatform({ healthFailsAt: 50 });
    const result = await rollout(platform, [10, 50, 100]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problem).toMatch(/^at 50%, health: status is degraded/);
    expect(deployed.at(-1)).toEqual([{ version_id: "old", percentage: 100 }]);
  });

  it("rolls back when wrangler cannot deploy a step", async () => {
    for (const failsAt of [50, 100]) {
      const { platform, deployed } = fakePlatform({ deployFailsAt: failsAt });
      const result = await rollout(platform, [10, 50, 100]);
      expect(!result.ok && result.rolledBackTo).toBe("old");
      expect(deployed.at(-1)).toEqual([{ version_id: "old", percentage: 100 }]);
    }
  });

  it("changes no traffic when the checks could not reach the uploaded version", async () => {
    const { platform, deployed } = fakePlatform({ checkable: "no URL to check" });
    expect(await rollout(platform, [10, 50, 100])).toEqual({
      ok: false,
      problem: "no URL to check; version new is uploaded and serves nothing",
      versionId: "new",
    });
    expect(deployed).toEqual([]);
  });

  it("changes no traffic when the upload fails", async () => {
    const { platform, deployed } = fakePlatform({ upload: new Error("docker: unknown flag --load") });
    const result = await rollout(platform, [10, 50, 100]);
    expect(result).toEqual({ ok: false, problem: "upload failed: docker: unknown flag --load; traffic is unchanged" });
    expect(deployed).toEqual([]);
  });

  it("deploys at once when the Worker has no deployment yet, or wrangler needs a full deploy for a Durable Object migration", async () => {
    const first = fakePlatform({ current: null });
    expect(await rollout(first.platform, [10, 50, 100])).toEqual({ ok: true, versionId: "whole", steps: [100] });
    expect(first.calls[0]).toBe("deploy-at-once");
    const migration = fakePlatform({ upload: { needsFullDeploy: "a pending Durable Object migration" }, smokeFailsAt: 100 });
    expect(await rollout(migration.platform, [10, 50, 100])).toMatchObject({ ok: false, rolledBackTo: "old" });
  });

  it("refuses to start while an earlier rollout is half-way", async () => {
    const split = { versions: stepTraffic("b", "a", 10) };
    const { platform, calls } = fakePlatform({ current: split });
    expect(await rollout(platform, [100])).toMatchObject({ ok: false, problem: expect.stringMatching(/half-way \(b@10% a@90%\)/) });
    expect(calls).toEqual([]);
  });
});

describe("--steps", () => {
  it("reads rising percentages ending at 100", () => {
    expect(parseSteps("10,50,100")).toEqual({ ok: true, steps: [10, 50, 100] });
    expect(parseSteps("25%, 100%")).toEqual({ ok: true, steps: [25, 100] });
    expect(parseSteps("100")).toEqual({ ok: true, steps: [100] });
  });

  it.each(["", "10,50", "50,10,100", "0,100", "10,150", "ten,100", "10,10,100"])("refuses %j", (text) => {
    expect(parseSteps(text).ok).toBe(false);
  });
});

describe("the rollback target", () => {
  const sole = (id: string, at: string): Deployment => ({ created_on: at, versions: [{ version_id: id, percentage: 100 }] });

  it("is the latest other version that served all traffic", () => {
    expect(
      rollbackTarget([sole("b", "2026-02"), sole("a", "2026-01"), { created_on: "2026-03", versions: stepTraffic("c", "b", 10) }, sole("c", "2026-04")]),
    ).toEqual({
      ok: true,
      versionId: "b",
    });
  });

  it("during a split, is the version that served all traffic before it", () => {
    expect(rollbackTarget([sole("a", "1"), sole("b", "2"), { created_on: "3", versions: stepTraffic("c", "b", 50) }])).toEqual({ ok: true, versionId: "b" });
  });

  it("names why there is none", () => {
    expect(rollbackTarget([])).toEqual({ ok: false, message: "the Worker has no deployments" });
    expect(rollbackTarget([sole("a", "1")]).ok).toBe(false);
  });
});
