import { describe, expect, it } from "vitest";
import { agentWithSecret } from "../container-stack";
import { api } from "../http";
import { boxesWithVariable, socket, until } from "../sandbox-box";
import type { Boxes } from "./tenant";

/**
 * One canonical form per id, and view tickets that follow the settings and the token
 * (docs/decisions/0015-tenant-boundaries.md, "Canonical ids and view tickets"): on real
 * boxes, an agent id in capitals reaches the same box, and an old `tty_url` (its page and an
 * open terminal) stops working within 30 s of the CLI turned off, the minting token revoked
 * or the agent deleted.
 */

const START_TIMEOUT_MS = 180_000;
/** The bound the platform promises, with the close event awaited, never slept for. */
const VIEW_BOUND_MS = 30_000;

/** The box's terminal protocol: typed text as `input`. */
const typed = (data: string) => JSON.stringify({ type: "input", data });

/** The close event of an open socket, and how long after `since` it came. */
function closed(ws: WebSocket, since: () => number) {
  return new Promise<{ code: number; reason: string; afterMs: number }>((resolve, reject) => {
    // Far past the bound: the assertion on afterMs, not this timer, judges it.
    const timer = setTimeout(() => reject(new Error("the terminal stayed open")), VIEW_BOUND_MS + 60_000);
    ws.addEventListener(
      "close",
      (event) => {
        clearTimeout(timer);
        resolve({ code: event.code, reason: event.reason, afterMs: Date.now() - since() });
      },
      { once: true },
    );
  });
}

/** The status and error code the stack answers a view's URL with, the Authorization header absent (as a frame sends it). */
async function frame(boxes: Boxes, path: string) {
  const response = await fetch(new URL(path, boxes.target.base), { redirect: "manual" });
  const text = await response.text();
  let code: string | undefined;
  try {
    code = JSON.parse(text).error?.code;
  } catch {}
  return { status: response.status, code, text, headers: response.headers };
}

export function idsAndViews(boxes: Boxes): void {
  /** The stack's API address (known once the stack has started). */
  const base = () => boxes.stack.apiUrl;
  /** A CLI view opened with `token` (the operator's by default): its URL and an open terminal that answers. */
  async function openCli(agentId: string, token?: string) {
    const started = await api("POST", `/api/agents/${agentId}/cli/start`, { base: boxes.target.base, token: token ?? boxes.target.token });
    expect(started.status, started.text).toBe(200);
    const ttyUrl = started.json.tty_url as string;
    const term = await socket(`${ttyUrl}ws`, base());
    const marker = `alive-${crypto.randomUUID().slice(0, 8)}`;
    term.ws.send(typed(`echo ${marker.replace("-", "''-")}\r`));
    await term.until(new RegExp(marker));
    return { ttyUrl, term };
  }

  /** Waits until the old URL is refused (at most VIEW_BOUND_MS), and answers how. */
  async function refusedWithin(path: string) {
    let last = await frame(boxes, path);
    await until(
      `${path} refused`,
      async () => {
        last = await frame(boxes, path);
        return last.status !== 200;
      },
      VIEW_BOUND_MS,
    );
    return last;
  }

  describe("canonical ids and view tickets (SBX-026, UI-014)", () => {
    it(
      "SBX-026: an agent id in capitals under a valid ticket answers as the lower-case id and starts no second box for the agent",
      async () => {
        const agent = await agentWithSecret(boxes.call, "Casey", {});
        const { ttyUrl, term } = await openCli(agent.agentId);
        const [box] = boxesWithVariable(agent.secretName);
        expect(box).toBeDefined();
        const upper = ttyUrl.replace(agent.agentId, agent.agentId.toUpperCase());
        expect(upper).not.toBe(ttyUrl);
        const lowerPage = await frame(boxes, ttyUrl);
        const upperPage = await frame(boxes, upper);
        expect(lowerPage.status).toBe(200);
        expect({ status: upperPage.status, text: upperPage.text }).toEqual({ status: lowerPage.status, text: lowerPage.text });
        // The terminal under the capitals is the agent's one box: what the first shell wrote, the second reads.
        term.ws.send(typed("echo canonical > /tmp/canonical-mark; echo wr''ote\r"));
        await term.until(/wrote/);
        const second = await socket(`${upper}ws`, base());
        second.ws.send(typed("cat /tmp/canonical-mark; echo done-''reading\r"));
        await second.until(/canonical\s+done-reading/);
        expect(boxesWithVariable(agent.secretName)).toEqual([box]);
        second.ws.close();
        term.ws.close();
      },
      START_TIMEOUT_MS,
    );

    it(
      "SBX-026: after PATCH cli false an old tty_url is 403 cli.disabled and its open terminal is closed, within 30 s",
      async () => {
        const agent = await agentWithSecret(boxes.call, "Cliff", {});
        const { ttyUrl, term } = await openCli(agent.agentId);
        let changedAt = 0;
        const close = closed(term.ws, () => changedAt);
        changedAt = Date.now();
        expect((await boxes.call("PATCH", `/api/agents/${agent.agentId}`, { cli: false })).status).toBe(200);
        const ended = await close;
        expect(ended.afterMs).toBeLessThan(VIEW_BOUND_MS);
        expect(ended).toMatchObject({ code: 1008, reason: "cli.disabled" });
        const page = await refusedWithin(ttyUrl);
        expect(Date.now() - changedAt).toBeLessThan(VIEW_BOUND_MS + 5_000);
        expect({ status: page.status, code: page.code }).toEqual({ status: 403, code: "cli.disabled" });
      },
      START_TIMEOUT_MS,
    );

    it(
      "SBX-026: after DELETE /api/tokens/:id of the token that opened it, an old tty_url is 401 auth.token_revoked and its open terminal is closed, within 30 s",
      async () => {
        const agent = await agentWithSecret(boxes.call, "Tokyo", {});
        const minted = await boxes.call("POST", "/api/tokens", { name: "CLI opener" });
        expect(minted.status, minted.text).toBe(201);
        const { ttyUrl, term } = await openCli(agent.agentId, minted.json.token);
        let revokedAt = 0;
        const close = closed(term.ws, () => revokedAt);
        revokedAt = Date.now();
        expect((await boxes.call("DELETE", `/api/tokens/${minted.json.id}`)).status).toBe(204);
        const ended = await close;
        expect(ended.afterMs).toBeLessThan(VIEW_BOUND_MS);
        expect(ended).toMatchObject({ code: 1008, reason: "auth.token_revoked" });
        const page = await refusedWithin(ttyUrl);
        expect({ status: page.status, code: page.code }).toEqual({ status: 401, code: "auth.token_revoked" });
        // The operator's own views are not touched by another token's revocation.
        const still = await openCli(agent.agentId);
        still.term.ws.close();
      },
      START_TIMEOUT_MS,
    );

    it(
      "SBX-026: after the agent is deleted an old tty_url is 404 agent.not_found and its open terminal is closed, within 30 s",
      async () => {
        const agent = await agentWithSecret(boxes.call, "Della", {});
        const { ttyUrl, term } = await openCli(agent.agentId);
        let deletedAt = 0;
        const close = closed(term.ws, () => deletedAt);
        deletedAt = Date.now();
        expect((await boxes.call("DELETE", `/api/agents/${agent.agentId}`)).status).toBe(204);
        const ended = await close;
        expect(ended.afterMs).toBeLessThan(VIEW_BOUND_MS);
        const page = await refusedWithin(ttyUrl);
        expect({ status: page.status, code: page.code }).toEqual({ status: 404, code: "agent.not_found" });
      },
      START_TIMEOUT_MS,
    );

    it(
      "SBX-026: a box that answers its view with Location, Refresh, Clear-Site-Data and an unknown header reaches the client without them",
      async () => {
        const agent = await agentWithSecret(boxes.call, "Hedy", {});
        const { ttyUrl, term } = await openCli(agent.agentId);
        // Root in its box, the agent replaces the terminal on its port with a server of its own.
        const server = `
          const secret = require("fs").readFileSync("/run/guilds/cli-secret", "utf8").trim();
          require("http").createServer((req, res) => {
            res.writeHead(200, {
              "content-type": "text/plain",
              location: "https://elsewhere.example/",
              refresh: "0; url=https://elsewhere.example/",
              "clear-site-data": '"*"',
              "x-box-invented": "1",
              "set-cookie": "taken=1",
            });
            res.end(req.url.startsWith("/t/" + secret + "/") ? "hostile answer" : "no");
          }).listen(7681);`;
        const encoded = Buffer.from(server).toString("base64");
        term.ws.send(
          typed(
            `echo ${encoded} | base64 -d > /tmp/hostile.js; setsid sh -c 'sleep 1; pkill -f "[t]erminal.cjs"; sleep 1; exec node /tmp/hostile.js' </dev/null >/dev/null 2>&1 &\r`,
          ),
        );
        let answer = await frame(boxes, `${ttyUrl}anything`);
        await until(
          "the box's own server to answer the view",
          async () => {
            answer = await frame(boxes, `${ttyUrl}anything`);
            return answer.text === "hostile answer";
          },
          60_000,
        ).catch((error: Error) => {
          throw new Error(`${error.message}; the last answer: ${answer.status} ${answer.text.slice(0, 300)}`);
        });
        for (const name of ["location", "refresh", "clear-site-data", "x-box-invented", "set-cookie"]) expect(answer.headers.get(name), name).toBeNull();
        expect(answer.headers.get("content-type")).toBe("text/plain");
        expect(answer.headers.get("content-security-policy")).toMatch(/^sandbox /);
        term.ws.close();
      },
      START_TIMEOUT_MS,
    );
  });
}
