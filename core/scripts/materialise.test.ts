import { describe, expect, it } from "vitest";
import { ensureScriptFile, materialisePlan, materialiseScripts, type ScriptFiles } from "./materialise";

const row = (name: string, source: string, hash = `h-${source}`) => ({ name, source, source_hash: hash });

/** An in-memory folder with the guest's rules: move never overwrites. */
function folder(initial: Record<string, string> = {}) {
  const files = new Map(Object.entries(initial));
  const calls: string[] = [];
  const api: ScriptFiles = {
    list: async (dir) =>
      [...files.keys()]
        .filter((p) => p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes("/"))
        .map((p) => ({ name: p.slice(dir.length + 1), type: "file", sha256: `h-${files.get(p)}` })),
    put: async (path, text) => {
      calls.push(`put ${path}`);
      files.set(path, text);
    },
    remove: async (path) => {
      calls.push(`remove ${path}`);
      files.delete(path);
    },
    move: async (from, to) => {
      calls.push(`move ${from} ${to}`);
      if (files.has(to)) throw new Error("exists");
      files.set(to, files.get(from)!);
      files.delete(from);
    },
  };
  return { files, calls, api };
}

describe("materialisation", () => {
  it("SCRIPT-024: a snapshotted source goes through a sibling temp file, the old file deleted, then moved onto <name>.py", async () => {
    const box = folder({ "/home/agent/scripts/fx.py": "old" });
    await materialiseScripts(box.api, [row("fx", "new")], []);
    expect(box.files.get("/home/agent/scripts/fx.py")).toBe("new");
    expect(box.calls[0]).toMatch(/^put \/home\/agent\/scripts\/\.fx\.[0-9a-f]{8}\.tmp$/);
    expect(box.calls[1]).toBe("remove /home/agent/scripts/fx.py");
    expect(box.calls[2]).toMatch(/^move \/home\/agent\/scripts\/\.fx\.[0-9a-f]{8}\.tmp \/home\/agent\/scripts\/fx\.py$/);
    expect([...box.files.keys()]).toEqual(["/home/agent/scripts/fx.py"]);
  });

  it("SCRIPT-023 / SCRIPT-027: the snapshot wins over a live row of the same name", () => {
    const plan = materialisePlan([], [row("fx", "snapshotted")], [row("fx", "edited later")]);
    expect(plan.write).toEqual([{ name: "fx", source: "snapshotted" }]);
  });

  it("SCRIPT-025: live rows absent from the snapshot are written too", () => {
    const plan = materialisePlan([], [row("a", "1")], [row("a", "2"), row("b", "3")]);
    expect(plan.write).toEqual([
      { name: "a", source: "1" },
      { name: "b", source: "3" },
    ]);
  });

  it("SCRIPT-026: managed files of neither set are removed; other files are left alone", async () => {
    const box = folder({
      "/home/agent/scripts/gone.py": "x",
      "/home/agent/scripts/notes.txt": "keep",
      "/home/agent/scripts/Upper.py": "not a script name",
      "/home/agent/scripts/kept.py": "k",
    });
    const plan = await materialiseScripts(box.api, [row("kept", "k")], []);
    expect(plan.remove).toEqual(["gone"]);
    expect([...box.files.keys()].sort()).toEqual(["/home/agent/scripts/Upper.py", "/home/agent/scripts/kept.py", "/home/agent/scripts/notes.txt"]);
  });

  it("SCRIPT-024: a file already holding the source (same SHA-256) is not rewritten", async () => {
    const box = folder({ "/home/agent/scripts/fx.py": "same" });
    const plan = await materialiseScripts(box.api, [row("fx", "same")], []);
    expect(plan).toEqual({ write: [], remove: [] });
    expect(box.calls).toEqual([]);
  });

  it("SCRIPT-027: before a run the file is made to hold the source it must execute: left alone when it does, rewritten when anything changed it", async () => {
    const box = folder({ "/home/agent/scripts/fx.py": "print(1)" });
    expect(await ensureScriptFile(box.api, row("fx", "print(1)"))).toBe(false);
    expect(box.calls).toEqual([]);
    box.files.set("/home/agent/scripts/fx.py", "tampered");
    expect(await ensureScriptFile(box.api, row("fx", "print(1)"))).toBe(true);
    expect(box.files.get("/home/agent/scripts/fx.py")).toBe("print(1)");
  });
});
