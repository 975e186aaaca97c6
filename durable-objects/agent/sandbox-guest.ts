/**
 * The agent object's calls into the box's guest (containers/README.md), over the
 * Container object's `fetch`. The token is the per-sandbox bearer secret: it goes in a
 * header to the box and nowhere else.
 */
import { SandboxError } from "../../core/sandbox/errors";

export type Transport = (request: Request) => Promise<Response>;

/** What a command ended with (`output`: stdout and stderr in arrival order). */
export interface ExecOutcome {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  killed: boolean;
  truncated: boolean;
  durationMs: number;
}

export interface ExecInput {
  command: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

const ORIGIN = "http://sandbox";

export class GuestCalls {
  constructor(
    private readonly transport: Transport,
    private readonly token: string,
  ) {}

  /** True once the guest answers its health check. */
  async healthy(): Promise<boolean> {
    try {
      const response = await this.transport(new Request(`${ORIGIN}/health`));
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  /**
   * Runs `bash -lc command`, reading the streamed frames to the end. An abort kills the
   * command's process group in the box through `POST /exec/:id/kill`: closing the request
   * is not enough, since the Container object in between does not pass the cancellation on.
   */
  async exec(input: ExecInput, signal?: AbortSignal): Promise<ExecOutcome> {
    const body = {
      command: input.command,
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.timeoutMs ? { timeout_ms: input.timeoutMs } : {}),
    };
    // Not aborted with the signal: the command's id comes with the answer, and a command
    // whose request was dropped before that would run on unkilled.
    const response = await this.call("POST", "/exec", { body: JSON.stringify(body), json: true });
    const execId = response.headers.get("x-exec-id");
    const kill = () => {
      if (execId)
        void this.call("POST", `/exec/${execId}/kill`).then(
          (r) => r.body?.cancel(),
          () => undefined,
        );
    };
    if (signal?.aborted) kill();
    signal?.addEventListener("abort", kill, { once: true });
    try {
      return await readExecFrames(response.body!);
    } finally {
      signal?.removeEventListener("abort", kill);
    }
  }

  /** Apparent bytes of the workspace, browser caches skipped (OP-SBX-5). */
  async workspaceBytes(): Promise<number> {
    const response = await this.call("GET", "/workspace/size");
    const { bytes } = (await response.json()) as { bytes: number };
    return bytes;
  }

  /**
   * The home as a zstd tar, streamed. The guest closes the browser first so its profile is
   * consistent; `resumeBrowser: false` leaves it closed (the save before a destroy).
   */
  async homeArchive(options: { resumeBrowser: boolean }): Promise<ReadableStream<Uint8Array>> {
    const response = await this.call("GET", options.resumeBrowser ? "/home/archive" : "/home/archive?resume_browser=false");
    return response.body!;
  }

  /** Extracts a saved home over the box's /home/agent. */
  async restoreHome(archive: ReadableStream<Uint8Array>, length: number): Promise<void> {
    const response = await this.call("PUT", "/home/archive", { body: archive, length });
    await response.body?.cancel();
  }

  /** Starts the desktop and browser (idempotent) once the home is in place. */
  async startServices(browser: boolean, language: string): Promise<void> {
    const response = await this.call("POST", "/services/start", { body: JSON.stringify({ browser, language }), json: true });
    await response.body?.cancel();
  }

  /** One browser action (SANDBOX-PLAN's POST /browser). */
  async browser(
    action: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ text?: string; image?: { mediaType: string; dataBase64: string } }> {
    const response = await this.call("POST", "/browser", { body: JSON.stringify({ ...args, action }), json: true, signal });
    const answer = (await response.json()) as { text?: string; image?: { media_type: string; data_base64: string } };
    return {
      ...(answer.text !== undefined ? { text: answer.text } : {}),
      ...(answer.image ? { image: { mediaType: answer.image.media_type, dataBase64: answer.image.data_base64 } } : {}),
    };
  }

  /** An authenticated call; a 4xx/5xx answer becomes a SandboxError carrying the guest's message. */
  private async call(
    method: string,
    path: string,
    options: { body?: BodyInit; json?: boolean; length?: number; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers = new Headers({ authorization: `Bearer ${this.token}` });
    if (options.json) headers.set("content-type", "application/json");
    if (options.length !== undefined) headers.set("content-length", String(options.length));
    const response = await this.transport(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: options.body } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    let message = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (parsed.error?.message) message = `${parsed.error.code ?? response.status}: ${parsed.error.message}`;
    } catch {
      // not JSON: the text as it came (the Container class answers plain text when the box is gone)
    }
    throw new SandboxError("sandbox.failed", `The sandbox answered ${method} ${path} with ${response.status}: ${message}`);
  }
}

/** The outcome of a streamed `/exec` answer (`output` frames in arrival order, then `exit`). */
async function readExecFrames(stream: ReadableStream<Uint8Array>): Promise<ExecOutcome> {
  const outcome: ExecOutcome = { exitCode: null, output: "", timedOut: false, killed: false, truncated: false, durationMs: 0 };
  const decoder = new TextDecoder();
  let pending = "";
  const take = (line: string) => {
    if (!line.trim()) return;
    const frame = JSON.parse(line) as Record<string, unknown>;
    if (frame.type === "output") outcome.output += String(frame.data ?? "");
    else if (frame.type === "exit") {
      outcome.exitCode = typeof frame.exit_code === "number" ? frame.exit_code : null;
      outcome.timedOut = frame.timed_out === true;
      outcome.killed = frame.killed === true;
      outcome.truncated = frame.truncated === true;
      outcome.durationMs = Number(frame.duration_ms) || 0;
    }
  };
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) take(line);
  }
  take(pending + decoder.decode());
  return outcome;
}
