/**
 * The rehearsal's stand-in for a deployment's HTTP answers: /api/health and the run routes the
 * smoke run uses, each answered as the version the request reaches would (its behaviour in the
 * stand-in's state file), honouring Cloudflare's version override header.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readState, type StandInVersion, servingVersion } from "./state";

export interface StandInServer {
  url: string;
  /** Requests as "<version id> <method> <path>", in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startStandInServer(options: { stateFile: string; env: string; tag: string; token: string; agentId: string }): Promise<StandInServer> {
  const runs = new Map<string, { errors: { code: string; message: string }[] }>();
  const requests: string[] = [];

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, version: StandInVersion) => {
    const path = new URL(req.url ?? "/", "http://stand-in").pathname;
    if (path === "/api/health") {
      const degraded = version.behaviour === "degraded";
      return answer(res, 200, {
        status: degraded ? "degraded" : "ok",
        database: { reachable: true },
        schema: { version: options.tag, expected: options.tag },
        ...(degraded ? { secrets: { missing: ["SECRETS_KEK"] } } : {}),
      });
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) return answer(res, 401, { error: { code: "auth.invalid" } });
    if (req.method === "POST" && path === `/api/agents/${options.agentId}/runs`) {
      const id = randomUUID();
      const errors = version.behaviour === "smoke-fails" ? [{ code: "model.error", message: "the model answered 500" }] : [];
      runs.set(id, { errors });
      return answer(res, 201, { id, generating: true, errors: [] });
    }
    const match = /^\/api\/runs\/([^/]+)(\/messages|\/archive)?$/.exec(path);
    const run = match ? runs.get(match[1] as string) : undefined;
    if (!match || !run) return answer(res, 404, { error: { code: "not_found" } });
    if (match[2] === "/messages") {
      const rows = [{ seq: 0, role: "system" }, { seq: 1, role: "user" }, ...(run.errors.length ? [] : [{ seq: 2, role: "assistant" }])];
      return answer(res, 200, { data: rows });
    }
    if (match[2] === "/archive") return answer(res, 200, { id: match[1] });
    return answer(res, 200, { id: match[1], status: "active", generating: false, errors: run.errors });
  };

  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const override = req.headers["cloudflare-workers-version-overrides"];
      const version = servingVersion(readState(options.stateFile).workers[options.env], Array.isArray(override) ? override[0] : override);
      requests.push(`${version?.id ?? "-"} ${req.method} ${req.url}`);
      if (!version) return answer(res, 503, { error: { code: "no_version" } });
      handle(req, res, version);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
