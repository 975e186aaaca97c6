import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { admin, claimInstallation } from "../../scripts/forge/test-support";
import { freePort, portInUse } from "../../scripts/stack/ports";
import { api } from "./http";
import { npmStart, terminate } from "./npm-start";

describe("npm start", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-start-"));
  chmodSync(stateDir, 0o755);
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it("honours PORT, prints the API line, stops every child on SIGTERM and reuses its data on a second start", async () => {
    const port = await freePort();
    const env = { PORT: String(port), STACK_STATE_DIR: stateDir, DATABASE_URL: "" };
    const base = `http://127.0.0.1:${port}`;

    const first = await npmStart(env);
    const stack = JSON.parse(readFileSync(join(stateDir, "stack.json"), "utf8"));
    expect(stack.api_url).toBe(base);
    expect(first.output.join("")).toMatch(new RegExp(`^API ${base}$`, "m"));
    expect(first.output.join("")).toContain(stack.token);
    // With real containers, Ready comes after each sandbox image has started once.
    if (first.output.join("").includes("Sandboxes in real containers")) {
      expect(first.output.join("")).toMatch(/\[stack\] sandbox images ready: litesandbox [\d.]+ s, standardsandbox [\d.]+ s\n(.*\n)*Ready\./);
    }
    expect((await api("GET", "/api/health", { base, token: null })).json.database.reachable).toBe(true);
    const guild = await api("POST", "/api/guilds", { base, token: stack.token, body: { name: "Survives restarts" } });
    expect(guild.status).toBe(201);
    const databasePort = Number(new URL(stack.database_url).port);
    // A claimed installation and a private repository added through it, on the local forge.
    const call = (method: string, path: string, body?: unknown) => api(method, path, { base, token: stack.token, body });
    for (const name of ["kept", "later"])
      expect((await admin(stack.forge.adminUrl, "POST", "/repos", { full_name: `restart-org/${name}`, private: true })).status).toBe(201);
    const { connection, installationId } = await claimInstallation(call, stack.forge.adminUrl, { account: "restart-org", repositories: ["kept", "later"] });
    expect(connection.status).toBe(201);
    const kept = await call("POST", `/api/guilds/${guild.json.id}/repositories`, { full_name: "restart-org/kept", connection_id: connection.json.id });
    expect(kept.status).toBe(201);

    await terminate(first, stateDir);
    expect(await portInUse(port)).toBe(false);
    expect(await portInUse(databasePort)).toBe(false);

    const second = await npmStart(env);
    const again = JSON.parse(readFileSync(join(stateDir, "stack.json"), "utf8"));
    expect(again.token).toBe(stack.token);
    const read = await api("GET", `/api/guilds/${guild.json.id}`, { base, token: again.token });
    expect(read.json.name).toBe("Survives restarts");
    // The forge kept its repositories, the installation the database names and the App's key:
    // a repository added through the connection after the restart is checked with GitHub as before.
    expect((await admin(again.forge.adminUrl, "GET", `/installations/${installationId}`)).json).toMatchObject({ account: "restart-org", revoked: false });
    expect((await admin(again.forge.adminUrl, "GET", "/repos/restart-org/kept")).status).toBe(200);
    const later = await call("POST", `/api/guilds/${guild.json.id}/repositories`, { full_name: "restart-org/later", connection_id: connection.json.id });
    expect(later.status, JSON.stringify(later.json)).toBe(201);
    await terminate(second, stateDir);
    expect(await portInUse(port)).toBe(false);
  }, 240_000);
});
