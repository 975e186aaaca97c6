/**
 * The shell and browser tools as the loop runs them (runTool), over a SandboxAccess made of
 * the guest client and the real guest run as a process on the host, which drives a real
 * headless Chromium over CDP.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PROJECT_PLAYWRIGHT,
  processAlive,
  type RunningChromium,
  type RunningGuest,
  startChromium,
  startGuest,
  TEST_GUEST_TOKEN,
} from "../../test/unit/guest-processes";
import { PRINTED_BEFORE_TIMEOUT_TEST_MS, printedBeforeTimeout } from "../../test/unit/printed-before-timeout";
import { Redactor } from "../output/redaction";
import { toolOutput } from "../output/tool-output";
import { GuestClient } from "../sandbox/guest-client";
import { guestFiles } from "../sandbox/guest-files";
import { MemoryNotesRecordsStore } from "./memory-store";
import { offeredTools, runTool, toolSchemas } from "./registry";
import type { SandboxAccess, ToolContext } from "./types";

const PAGE = `<!doctype html><title>Shop</title><h1 id="s">Basket empty</h1>
<button onclick="document.getElementById('s').textContent='Basket: 1 item'">Add to basket</button>
<form onsubmit="event.preventDefault(); document.getElementById('s').textContent='Found ' + this.q.value"><input name="q" aria-label="Search"></form>
<div style="height: 3000px"></div>`;

let site: Server;
let siteUrl: string;
let chromium: RunningChromium;
let guest: RunningGuest;
let client: GuestClient;
let sandbox: SandboxAccess;

beforeAll(async () => {
  site = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(req.url === "/help" ? "<title>Help</title><p>Ask us</p>" : PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  chromium = await startChromium();
  guest = await startGuest({ GUEST_CDP_URL: chromium.cdpUrl, GUEST_PLAYWRIGHT: PROJECT_PLAYWRIGHT });
  client = new GuestClient({ fetch: (url, init) => fetch(url, init), token: TEST_GUEST_TOKEN, baseUrl: guest.base });
  sandbox = {
    exec: (input, signal) => client.exec(input, signal),
    browser: (action, args, signal) => client.browser(action, args, signal),
    files: guestFiles(client),
  };
}, 60_000);

afterAll(async () => {
  await guest?.stop();
  await chromium?.stop();
  site?.closeAllConnections();
  site?.close();
});

const tools = offeredTools({ kind: "direct", browser: true, coding: true });

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    agentId: "agent-7",
    runId: "run-9",
    toolCallId: "call-1",
    now: () => new Date(),
    store: new MemoryNotesRecordsStore(() => new Date()),
    sandbox,
    ...overrides,
  };
}

const call = (name: string, args: Record<string, unknown>, ctx = context()) => runTool(tools, name, JSON.stringify(args), ctx);

const BROWSER_NAMES = [
  "browser_navigate",
  "browser_snapshot",
  "browser_click",
  "browser_type",
  "browser_press_key",
  "browser_scroll",
  "browser_screenshot",
  "browser_tabs",
];

describe("sandbox tools in the registry", () => {
  it("EXACT-019 / OP-EXACT-2: the eight browser tools come with browser, shell with coding, after the other bindings", () => {
    const names = (flags: Parameters<typeof offeredTools>[0]) => offeredTools(flags).map((t) => t.name);
    const base = names({ kind: "direct", group_post: true });
    expect(names({ kind: "direct", group_post: true, browser: true })).toEqual([...base, ...BROWSER_NAMES]);
    expect(names({ kind: "direct", group_post: true, coding: true })).toEqual([...base, "shell"]);
    expect(names({ kind: "direct", group_post: true, browser: true, coding: true })).toEqual([...base, ...BROWSER_NAMES, "shell"]);
    expect(names({ kind: "schedule" })).not.toContain("shell");
  });

  it("EXACT-005 / EXACT-010: the same flags give the same complete schemas", () => {
    const once = toolSchemas(offeredTools({ kind: "group", browser: true, coding: true }));
    expect(toolSchemas(offeredTools({ kind: "group", browser: true, coding: true }))).toEqual(once);
    const shellSchema = once.find((s) => s.function.name === "shell")!.function.parameters;
    expect(shellSchema).toMatchObject({ type: "object", required: ["command"], additionalProperties: false });
    expect(Object.keys(shellSchema.properties as object)).toEqual(["command", "cwd", "timeout_s"]);
    const tabs = once.find((s) => s.function.name === "browser_tabs")!.function.parameters as { properties: { action: { enum: string[] } } };
    expect(tabs.properties.action.enum).toEqual(["list", "new", "select", "close"]);
  });

  it("SBX: without a sandbox every sandbox tool answers sandbox.unavailable and never throws", async () => {
    const ctx = context({ sandbox: undefined });
    const args: Record<string, Record<string, unknown>> = {
      shell: { command: "true" },
      browser_navigate: { url: "https://example.com" },
      browser_click: { ref: "e1" },
      browser_type: { ref: "e1", text: "x" },
      browser_press_key: { key: "Enter" },
      browser_scroll: { direction: "down" },
      browser_tabs: { action: "list" },
    };
    for (const name of [...BROWSER_NAMES, "shell"]) {
      const result = await call(name, args[name] ?? {}, ctx);
      expect(result.content, name).toBe(`ERROR: sandbox.unavailable: ${name} needs the agent's sandbox, and none is available to this run`);
    }
  });
});

describe("shell", () => {
  it("REPO-030: runs a command and reports its output and exit code", async () => {
    const ok = await call("shell", { command: "echo hello; echo oops >&2" });
    expect(ok.content).toMatch(/^hello\noops\n\[exit code 0 after \d+\.\d s\]$/);
    const failed = await call("shell", { command: "ls /no-such-dir" });
    expect(failed.content).toMatch(/No such file or directory\n\[exit code 2 after/);
    expect((await call("shell", { command: "true" })).content).toMatch(/^\(no output\)\n\[exit code 0/);
  });

  it("SEC-019: commands see GUILD_RUN_ID and GUILD_AGENT_ID of the run", async () => {
    const result = await call("shell", { command: 'echo "$GUILD_RUN_ID $GUILD_AGENT_ID"' });
    expect(result.content).toMatch(/^run-9 agent-7\n/);
  });

  it("REPO-030: cwd sets the directory; a missing one is a clear error", async () => {
    expect((await call("shell", { command: "pwd", cwd: "/tmp" })).content).toMatch(/^\/tmp\n/);
    expect((await call("shell", { command: "pwd" })).content).toMatch(new RegExp(`^${guest.home}\\n`));
    expect((await call("shell", { command: "pwd", cwd: "/nowhere" })).content).toBe("ERROR: cwd.not_found: /nowhere does not exist");
  });

  it(
    "REPO-030: timeout_s ends a long command and says so",
    async () => {
      // A kill before bash printed is not this test: a loaded machine gets a longer timeout.
      const { result, timeoutMs } = await printedBeforeTimeout(
        (ms) => call("shell", { command: "echo begun; sleep 30", timeout_s: ms / 1000 }),
        (r) => r.content.startsWith("begun"),
      );
      expect(result.content).toBe(`begun\n[timed out after ${timeoutMs / 1000} s: the command and everything it started were killed]`);
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );

  it("REPO-030: bad arguments are refused before anything runs", async () => {
    expect((await call("shell", { command: "" })).content).toMatch(/^ERROR: invalid arguments: command/);
    expect((await call("shell", { command: "true", timeout_s: 7200 })).content).toMatch(/^ERROR: invalid arguments: timeout_s/);
  });

  it("GEN-025 / SEC-014: shell output goes through the standard pipeline: secrets redacted, budget trailer last", async () => {
    const result = await call("shell", { command: "echo token=$(printf 'sk-live-%s' 9f8e7d6c5b4a)" });
    const stored = toolOutput({ text: result.content, redactor: new Redactor([{ name: "API_TOKEN", value: "sk-live-9f8e7d6c5b4a" }]), remaining: 20 });
    expect(stored).toMatch(/^token=\[REDACTED:API_TOKEN\]\n\[exit code 0 after \d+\.\d s\]\nremaining_tool_calls: 20$/);
  });

  it("CANCEL-001: cancelling the generation kills the running command and its children", async () => {
    const controller = new AbortController();
    const pidFile = `${guest.home}/cancel.pid`;
    const running = call("shell", { command: `sleep 120 & echo $! > ${pidFile}; wait` }, context({ signal: controller.signal }));
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pid = await client.getFile(pidFile).then(
        (bytes) => Number(new TextDecoder().decode(bytes).trim()),
        () => 0,
      );
    }
    expect(processAlive(pid)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.content).toBe("(no output)\n[killed: the command was cancelled]");
    for (let i = 0; i < 40 && processAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processAlive(pid)).toBe(false);
  });
});

describe("browser tools (OP-EXACT-2, SBX-019)", () => {
  const refOf = (text: string, role: string, name: string) => {
    const match = new RegExp(`${role} "${name}"[^\\n]*\\[ref=([a-z0-9]+)\\]`).exec(text);
    if (!match) throw new Error(`no ${role} "${name}" in:\n${text}`);
    return match[1]!;
  };

  it("OP-EXACT-2: browser_navigate and browser_snapshot answer the page as text with refs", async () => {
    const navigated = await call("browser_navigate", { url: siteUrl });
    expect(navigated.content).toContain("Title: Shop");
    expect(navigated.content).toMatch(/button "Add to basket" \[ref=e\d+\]/);
    expect(navigated.image).toBeUndefined();
    expect((await call("browser_snapshot", {})).content).toMatch(/heading "Basket empty"/);
  });

  it("OP-EXACT-2: browser_click, browser_type and browser_press_key act on the page", async () => {
    const snapshot = (await call("browser_snapshot", {})).content;
    const clicked = await call("browser_click", { ref: refOf(snapshot, "button", "Add to basket") });
    expect(clicked.content).toMatch(/heading "Basket: 1 item"/);
    const typed = await call("browser_type", { ref: refOf(snapshot, "textbox", "Search"), text: "socks" });
    expect(typed.content).toMatch(/textbox "Search"[^\n]*: socks/);
    expect((await call("browser_press_key", { key: "Enter" })).content).toMatch(/heading "Found socks"/);
    const submitted = await call("browser_type", { selector: "input[name=q]", text: "hats", submit: true });
    expect(submitted.content).toMatch(/heading "Found hats"/);
  });

  it("OP-EXACT-2: browser_scroll moves the view", async () => {
    expect((await call("browser_scroll", { direction: "down", amount: 400 })).content).toMatch(/x=0, y=400 of a/);
  });

  it("OP-EXACT-2: browser_screenshot's result carries a PNG image for the model", async () => {
    const result = await call("browser_screenshot", {});
    expect(result.content).toBe(`Screenshot of ${siteUrl}/ (1280x720).`);
    expect(result.image?.mediaType).toBe("image/png");
    const png = Buffer.from(result.image!.dataBase64, "base64");
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 720]);
  });

  it("OP-EXACT-2: browser_tabs opens, selects and closes tabs", async () => {
    const opened = await call("browser_tabs", { action: "new", url: `${siteUrl}/help` });
    expect(opened.content).toMatch(/^1: \[current\] Help - /m);
    expect((await call("browser_snapshot", {})).content).toContain("Title: Help");
    expect((await call("browser_tabs", { action: "select", index: 0 })).content).toMatch(/^0: \[current\] Shop/m);
    expect((await call("browser_tabs", { action: "close", index: 1 })).content).toBe(`Tabs:\n0: [current] Shop - ${siteUrl}/`);
  });

  it("OP-EXACT-2: mistakes come back as text the model can correct", async () => {
    expect((await call("browser_click", {})).content).toBe("ERROR: invalid arguments: ref: give either ref or selector");
    expect((await call("browser_click", { ref: "e4242" })).content).toMatch(
      /^ERROR: browser\.ref_not_found: no element matches ref e4242 .* take a new browser_snapshot/,
    );
    expect((await call("browser_navigate", { url: "ftp://files.example" })).content).toMatch(/^ERROR: browser\.invalid_args: url must be http or https/);
    expect((await call("browser_tabs", { action: "select", index: 9 })).content).toMatch(/^ERROR: browser\.tab_not_found: no tab 9/);
  });
});
