/**
 * A client of the guest API that runs inside every sandbox (containers/README.md), over any
 * `fetch`: a Container stub's in a Durable Object, the global one in tests. Pure: no Workers
 * APIs, so it runs in Node against a guest process too.
 *
 * @example
 * const guest = new GuestClient({ fetch: (url, init) => stub.fetch(url, init), token });
 * const run = await guest.exec({ command: "ls -la", timeoutMs: 30_000 }, signal);
 */

import { SandboxError } from "../tools/sandbox-error";
import type { SandboxExecResult, ToolImage } from "../tools/types";
import { EXEC_MARKER_ROOM, FRAME_ESCAPE_FACTOR, GUEST_READ_CAPS, type GuestReadCaps, readCapped, readErrorText, readJsonCapped } from "./guest-reads";

/** The part of `fetch` the client uses. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface GuestClientOptions {
  fetch: FetchLike;
  /** The per-sandbox bearer secret (GUEST_TOKEN). */
  token: string;
  /** Origin the requests are addressed to; a Container stub ignores the host. Default `http://guest`. */
  baseUrl?: string;
  /** How long a cancelled command may take to report its exit before the stream is closed. Default 3 s. */
  killGraceMs?: number;
  /** The most the client reads of each kind of answer, whatever the box sends (GUEST_READ_CAPS by default). */
  caps?: Partial<GuestReadCaps>;
}

/** Small JSON answers (a write's receipt, a size): a few hundred bytes from an honest guest. */
const RECEIPT_BYTES = 64 << 10;

export interface ExecInput {
  command: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Output kept (stdout and stderr together) before the guest's truncation marker. */
  maxOutputBytes?: number;
}

export interface WorkspaceSize {
  path: string;
  bytes: number;
  files: number;
  durationMs: number;
}

/** One entry of a directory listing; a symlink is `other` (never followed). */
export interface FileEntry {
  name: string;
  type: "file" | "dir" | "other";
  bytes: number;
  /** Hex SHA-256 of a regular file's bytes; the guest sends it for files up to 1 MiB. */
  sha256?: string;
}

type ExecFrame =
  | { type: "start"; id: string }
  | { type: "output"; stream: string; data: string }
  | { type: "exit"; exit_code: number | null; timed_out: boolean; killed: boolean; truncated: boolean; duration_ms: number; error?: string };

/** A warm box's claim: the agent's bearer token (at least 16 characters), its environment (the secrets), its save address. */
export interface ClaimInput {
  token: string;
  env: Record<string, string>;
  settings?: { GUEST_HOME_SAVE_URL?: string };
}

/** What a box keeps between boxes: the agent's /home/agent, or a task's /data. */
export type ArchiveArea = "home" | "data";

/**
 * The guest's routes of each area (containers/guest: home-archive.ts, volume-archive.ts). The
 * volume has no "ready": the guest never saves it on its own, so there is nothing to allow.
 */
const ARCHIVE_ROUTES: Record<ArchiveArea, { get: string; put: string; ready: string | null }> = {
  home: { get: "/home/archive", put: "/home/archive", ready: "/home/ready" },
  data: { get: "/volume/archive", put: "/volume/restore", ready: null },
};

export class GuestClient {
  readonly #fetch: FetchLike;
  readonly #token: string;
  readonly #base: string;
  readonly #killGraceMs: number;
  readonly #caps: GuestReadCaps;

  constructor(options: GuestClientOptions) {
    this.#fetch = options.fetch;
    this.#token = options.token;
    this.#base = (options.baseUrl ?? "http://guest").replace(/\/$/, "");
    this.#killGraceMs = options.killGraceMs ?? 3000;
    this.#caps = { ...GUEST_READ_CAPS, ...options.caps };
  }

  /** True when the guest answers `GET /health`. */
  async health(): Promise<boolean> {
    try {
      const res = await this.#fetch(`${this.#base}/health`);
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * Runs a command and collects its streamed output. An aborted `signal` kills the command
   * (`POST /exec/:id/kill`), waits a moment for its exit report, then closes the stream: the
   * answer is the command's own end, `killed: true`. A command that cannot start (missing cwd)
   * rejects with the guest's code.
   */
  async exec(input: ExecInput, signal?: AbortSignal): Promise<SandboxExecResult> {
    if (signal?.aborted) return abortedBeforeStart();
    const body = {
      command: input.command,
      ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.timeoutMs !== undefined ? { timeout_ms: input.timeoutMs } : {}),
      ...(input.maxOutputBytes !== undefined ? { max_output_bytes: input.maxOutputBytes } : {}),
    };
    // Aborts the request itself only while no command id is known (the guest then kills on hang-up).
    const early = new AbortController();
    const onEarlyAbort = () => early.abort();
    signal?.addEventListener("abort", onEarlyAbort, { once: true });
    let res: Response;
    try {
      res = await this.#call("POST", "/exec", { json: body, signal: early.signal });
    } catch (error) {
      if (signal?.aborted) return abortedBeforeStart();
      throw error;
    } finally {
      signal?.removeEventListener("abort", onEarlyAbort);
    }
    return this.#readExec(res, signal, input.maxOutputBytes ?? this.#caps.execOutputBytes);
  }

  /**
   * One browser action (`POST /browser`): the page as text, or a screenshot. The body is
   * `{action, ...args}`; an `action` of the args themselves (browser_tabs') travels as `tab_action`.
   */
  async browser(action: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text?: string; image?: ToolImage }> {
    const { action: own, ...rest } = args;
    const json = { ...rest, ...(own !== undefined ? { tab_action: own } : {}), action };
    const res = await this.#call("POST", "/browser", { json, ...(signal ? { signal } : {}) });
    const answer = await readJsonCapped<{ text?: unknown; image?: { media_type?: unknown; data_base64?: unknown } }>(
      res,
      this.#caps.jsonBytes,
      "POST /browser",
    );
    const image = answer.image;
    return {
      ...(typeof answer.text === "string" ? { text: answer.text } : {}),
      ...(image && typeof image.media_type === "string" && typeof image.data_base64 === "string"
        ? { image: { mediaType: image.media_type, dataBase64: image.data_base64 } }
        : {}),
    };
  }

  /** Writes a file (parents created); the guest renames it into place, so a failed upload leaves nothing. */
  async putFile(path: string, body: NonNullable<RequestInit["body"]>, signal?: AbortSignal): Promise<{ path: string; bytes: number }> {
    const res = await this.#call("PUT", `/files?path=${encodeURIComponent(path)}`, { body, ...(signal ? { signal } : {}) });
    return readJsonCapped<{ path: string; bytes: number }>(res, RECEIPT_BYTES, "PUT /files");
  }

  /**
   * A file's bytes, at most `maxBytes` (the client's file cap by default); rejects with
   * `file.not_found` and the like, and past the cap with `sandbox.answer_too_large`.
   */
  async getFile(path: string, signal?: AbortSignal, maxBytes = this.#caps.fileBytes): Promise<Uint8Array> {
    const res = await this.#call("GET", `/files?path=${encodeURIComponent(path)}`, signal ? { signal } : {});
    return readCapped(res, maxBytes, "GET /files");
  }

  /** Removes a file; rejects with `file.not_found` (404) when it is not there and `path.is_directory` (409) for a directory. */
  async deleteFile(path: string, signal?: AbortSignal): Promise<void> {
    const res = await this.#call("DELETE", `/files?path=${encodeURIComponent(path)}`, signal ? { signal } : {});
    await res.body?.cancel();
  }

  /**
   * Moves a file or directory, creating `to`'s parents. It never overwrites: an existing `to`
   * rejects with `file.exists` (409), a missing `from` with `file.not_found` (404).
   */
  async moveFile(from: string, to: string, signal?: AbortSignal): Promise<void> {
    const res = await this.#call("POST", "/files/move", { json: { from, to }, ...(signal ? { signal } : {}) });
    await res.body?.cancel();
  }

  /**
   * A directory's entries by name (`GET /files/list`); rejects with `path.not_found` (404) or
   * `path.not_directory` (409).
   *
   * @example (await guest.listFiles("/home/agent/scripts")).entries.filter((e) => e.type === "file" && e.name.endsWith(".py"))
   */
  async listFiles(dir: string, signal?: AbortSignal): Promise<{ path: string; entries: FileEntry[] }> {
    const res = await this.#call("GET", `/files/list?path=${encodeURIComponent(dir)}`, signal ? { signal } : {});
    return readJsonCapped<{ path: string; entries: FileEntry[] }>(res, this.#caps.jsonBytes, "GET /files/list");
  }

  /** Apparent size of the files under `path` (the home by default), caches skipped. */
  async workspaceSize(path?: string, signal?: AbortSignal): Promise<WorkspaceSize> {
    const query = path === undefined ? "" : `?path=${encodeURIComponent(path)}`;
    const res = await this.#call("GET", `/workspace/size${query}`, signal ? { signal } : {});
    const size = await readJsonCapped<{ path: string; bytes: number; files: number; duration_ms: number }>(res, RECEIPT_BYTES, "GET /workspace/size");
    return { path: size.path, bytes: size.bytes, files: size.files, durationMs: size.duration_ms };
  }

  /**
   * The home as a zstd tar, streamed (`GET /home/archive`): hand it to object storage as it
   * comes. The guest closes the browser first so its profile is consistent; `resumeBrowser:
   * false` leaves it closed (the save before a destroy).
   */
  async getHomeArchive(options: { resumeBrowser?: boolean; maxBytes?: number; signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    return this.getArchive("home", options);
  }

  /** The home's or a task's /data archive (`GET /volume/archive` for /data), as getHomeArchive says. */
  async getArchive(
    area: ArchiveArea,
    options: { resumeBrowser?: boolean; maxBytes?: number; signal?: AbortSignal; gitOnly?: boolean } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const query = new URLSearchParams();
    if (options.resumeBrowser === false) query.set("resume_browser", "false");
    // A task's workspace's git directory alone (a repository seed, decision 0037): no work tree.
    if (options.gitOnly) query.set("part", "git");
    if (options.maxBytes !== undefined) query.set("max_bytes", String(options.maxBytes));
    const route = ARCHIVE_ROUTES[area].get;
    const path = query.size ? `${route}?${query}` : route;
    const res = await this.#call("GET", path, options.signal ? { signal: options.signal } : {});
    if (!res.body) throw new SandboxError("sandbox.guest_error", `the guest sent no ${area} archive`);
    return res.body;
  }

  /**
   * Restores the home from a zstd tar stream (`PUT /home/archive`). With its `length` known
   * (R2's object size) the body goes with a Content-Length instead of chunked.
   */
  async putHomeArchive(
    archive: ReadableStream<Uint8Array>,
    options: { length?: number; maxBytes?: number; signal?: AbortSignal } = {},
  ): Promise<{ bytes: number; files: number }> {
    return this.putArchive("home", archive, options);
  }

  /** Restores the home or a task's /data (`PUT /volume/restore` for /data), as putHomeArchive says. */
  async putArchive(
    area: ArchiveArea,
    archive: ReadableStream<Uint8Array>,
    options: { length?: number; maxBytes?: number; signal?: AbortSignal } = {},
  ): Promise<{ bytes: number; files: number }> {
    const route = ARCHIVE_ROUTES[area].put;
    const path = options.maxBytes !== undefined ? `${route}?max_bytes=${options.maxBytes}` : route;
    const res = await this.#call("PUT", path, {
      body: archive,
      contentType: "application/zstd",
      ...(options.length !== undefined ? { length: options.length } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return readJsonCapped<{ bytes: number; files: number }>(res, RECEIPT_BYTES, `PUT ${route}`);
  }

  /**
   * There was no saved home to restore (`POST /home/ready`): the home counts as restored, so
   * the box's own save on shutdown may run, under this cap.
   */
  async homeReady(maxBytes: number): Promise<void> {
    await this.archiveReady("home", maxBytes);
  }

  /** There was no saved archive of this area (`POST /home/ready`), as homeReady says; nothing to do for /data. */
  async archiveReady(area: ArchiveArea, maxBytes: number): Promise<void> {
    const route = ARCHIVE_ROUTES[area].ready;
    if (!route) return;
    const res = await this.#call("POST", `${route}?max_bytes=${maxBytes}`, { json: {} });
    await res.body?.cancel();
  }

  /** Starts the desktop and the browser (idempotent; `POST /services/start`) once the home is in place. */
  async startServices(browser: boolean, language: string): Promise<void> {
    const res = await this.#call("POST", "/services/start", { json: { browser, language } });
    await res.body?.cancel();
  }

  /**
   * Claims a warm pool box (`POST /claim`, with this client's token, the pool's): from then on
   * the guest accepts only `input.token` (call it through a new client holding that), and its
   * commands see `input.env`. Rejects with the guest's code: `guest.already_claimed` (409, the
   * box went to another claim; nothing of this one was applied), `guest.not_warm` (409),
   * `guest.invalid_claim` (400).
   *
   * @example await new GuestClient({ fetch, token: poolToken }).claim({ token: agentToken, env: secrets, settings: { GUEST_HOME_SAVE_URL: url } });
   */
  async claim(input: ClaimInput): Promise<void> {
    const json = { token: input.token, env: input.env, ...(input.settings ? { settings: input.settings } : {}) };
    const res = await this.#call("POST", "/claim", { json });
    await res.body?.cancel();
  }

  /** Ends a running command (`POST /exec/:id/kill`); false when it was no longer running. */
  async kill(execId: string): Promise<boolean> {
    try {
      await this.#call("POST", `/exec/${encodeURIComponent(execId)}/kill`, { json: {} }).then((res) => res.body?.cancel());
      return true;
    } catch (error) {
      if (error instanceof SandboxError && error.status === 404) return false;
      throw error;
    }
  }

  /** A request with the bearer token; a non-2xx answer rejects with the guest's code, no answer with `sandbox.unavailable`. */
  async #call(
    method: string,
    path: string,
    options: { json?: unknown; body?: RequestInit["body"]; contentType?: string; length?: number; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (options.length !== undefined) headers["content-length"] = String(options.length);
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    } else if (options.contentType) headers["content-type"] = options.contentType;
    // Node's fetch needs `duplex` for a streamed body; workerd ignores it.
    const init = { method, headers, ...(body !== undefined ? { body } : {}), ...(options.signal ? { signal: options.signal } : {}) } as RequestInit;
    if (body instanceof ReadableStream) (init as { duplex?: string }).duplex = "half";
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, init);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new SandboxError("sandbox.unavailable", `the sandbox did not answer ${method} ${path.split("?")[0]}: ${messageOf(error)}`);
    }
    if (res.ok) return res;
    throw await guestError(res, `${method} ${path.split("?")[0]}`, this.#caps.errorBytes);
  }

  /**
   * The exec stream's frames, read within the output cap: an honest guest stops at it and
   * adds its marker line; past the cap plus that line's room (or one frame longer than its
   * escaped form could be) the client stops reading, ends the command and says so.
   */
  async #readExec(res: Response, signal: AbortSignal | undefined, maxOutputBytes: number): Promise<SandboxExecResult> {
    const started = Date.now();
    const id = res.headers.get("x-exec-id");
    // UTF-16 units: never more than the bytes an honest guest counted.
    const outputCap = maxOutputBytes + EXEC_MARKER_ROOM;
    const frameCap = outputCap * FRAME_ESCAPE_FACTOR + EXEC_MARKER_ROOM;
    let overflowed = false;
    const reader = res.body?.getReader();
    if (!reader) throw new SandboxError("sandbox.guest_error", "the guest sent no exec stream");
    const decoder = new TextDecoder();
    let pending = "";
    let output = "";
    let exit: Extract<ExecFrame, { type: "exit" }> | null = null;
    let cancelled = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      cancelled = true;
      if (id) this.kill(id).catch(() => {});
      // The kill ends the command and so the stream; if the answer never comes, stop waiting.
      grace = setTimeout(() => void reader.cancel().catch(() => {}), id ? this.#killGraceMs : 0);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (!exit) {
        const { done, value } = await reader.read();
        if (done) break;
        const lines = (pending + decoder.decode(value, { stream: true })).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          if (!line) continue;
          if (line.length > frameCap) overflowed = true;
          else {
            const frame = JSON.parse(line) as ExecFrame;
            if (frame.type === "output") output += frame.data;
            else if (frame.type === "exit") exit = frame;
          }
        }
        if (pending.length > frameCap || output.length > outputCap) overflowed = true;
        if (overflowed) break;
      }
    } catch (error) {
      if (!cancelled) throw new SandboxError("sandbox.unavailable", `the command's output stream broke: ${messageOf(error)}`);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (grace !== undefined) clearTimeout(grace);
      if (!exit) await reader.cancel().catch(() => {});
    }
    if (overflowed) {
      if (id) await this.kill(id).catch(() => false);
      const note = `[the box sent more than ${maxOutputBytes} bytes of output; the platform stopped reading there and ended the command]`;
      const kept = output.slice(0, maxOutputBytes);
      return {
        exitCode: null,
        output: `${kept}${kept.endsWith("\n") || !kept ? "" : "\n"}${note}`,
        timedOut: false,
        killed: true,
        truncated: true,
        durationMs: Date.now() - started,
      };
    }
    if (!exit) {
      if (cancelled) return { exitCode: null, output, timedOut: false, killed: true, truncated: false, durationMs: 0 };
      throw new SandboxError("sandbox.unavailable", "the command's output stream ended before its exit report");
    }
    if (exit.error) throw new SandboxError("exec.failed", exit.error);
    return {
      exitCode: exit.exit_code,
      output,
      timedOut: exit.timed_out,
      killed: exit.killed,
      truncated: exit.truncated,
      durationMs: exit.duration_ms,
    };
  }
}

function abortedBeforeStart(): SandboxExecResult {
  return { exitCode: null, output: "", timedOut: false, killed: true, truncated: false, durationMs: 0 };
}

/** The guest's `{error:{code,message}}` as a SandboxError; any other body gets a generic code. */
async function guestError(res: Response, what: string, maxBytes: number): Promise<SandboxError> {
  const text = await readErrorText(res, maxBytes);
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    if (typeof code === "string" && typeof message === "string") return new SandboxError(code, message, res.status);
  } catch {
    // Not the guest's JSON: a proxy or the container runtime answered.
  }
  return new SandboxError("sandbox.guest_error", `${what} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`, res.status);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
