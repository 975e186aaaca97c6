import { afterEach, describe, expect, it, vi } from "vitest";
import { describe as describeFailure } from "./api";
import { ApiError, createApiClient, unwrap } from "./api-client";
import { failureNotice, isDatabaseUnavailable, RETRYING_MESSAGE, retryDelayMs, retryingNotice, TRY_AGAIN_MESSAGE, untilAvailable } from "./unavailable";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The API's answer while the database does not answer, as the Worker sends it. */
function unavailableAnswer(retryAfter: string | null, details: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfter) headers["retry-after"] = retryAfter;
  const body = { error: { code: "database.unavailable", message: "The database is not answering right now; try again shortly", details } };
  return new Response(JSON.stringify(body), { status: 503, headers });
}

async function failureOf(answer: Response): Promise<unknown> {
  vi.stubGlobal("fetch", async () => answer);
  const api = createApiClient({ baseUrl: "http://api.test", token: () => "gld_session" });
  return unwrap(api.GET("/api/runs/{id}", { params: { path: { id: "r1" } } })).catch((e: unknown) => e);
}

describe("HARDEN-2: the console while the database does not answer", () => {
  it("HARDEN-2: a 503 database.unavailable is recognised, and its Retry-After sets when to load again", async () => {
    const error = await failureOf(unavailableAnswer("7"));
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(retryDelayMs(error as ApiError)).toBe(7_000);
    // The body's own figure wins; absurd figures are kept between 1 and 30 s.
    expect(retryDelayMs((await failureOf(unavailableAnswer("7", { retry_after_s: 5 }))) as ApiError)).toBe(5_000);
    expect(retryDelayMs((await failureOf(unavailableAnswer(null))) as ApiError)).toBe(5_000);
    expect(retryDelayMs(new ApiError(503, "database.unavailable", "", { retry_after_s: 3600 }))).toBe(30_000);
  });

  it("HARDEN-2: says the database is not answering, not a bare code; other failures keep their message", async () => {
    const error = await failureOf(unavailableAnswer("5"));
    expect(describeFailure(error)).toBe(TRY_AGAIN_MESSAGE);
    expect(RETRYING_MESSAGE).toMatch(/database is not answering; retrying/);
    expect(isDatabaseUnavailable(new ApiError(503, "sandbox.unavailable", "no engine"))).toBe(false);
    expect(describeFailure(new ApiError(409, "agent.busy", "The agent is generating"))).toBe("The agent is generating (agent.busy)");
  });
});

describe("HARDEN-2: a view's load while the database does not answer", () => {
  it("HARDEN-2: says it is retrying, waits each Retry-After, and clears the message once the database answers", async () => {
    const shown: Array<string | null> = [];
    const waits: number[] = [];
    let calls = 0;
    const value = await untilAvailable(
      async () => {
        if (++calls < 3) throw new ApiError(503, "database.unavailable", "not answering", { retry_after_s: 2 });
        return "run";
      },
      retryingNotice((message) => shown.push(message)),
      () => false,
      async (ms) => {
        waits.push(ms);
      },
    );
    expect(value).toBe("run");
    expect(waits).toEqual([2_000, 2_000]);
    expect(shown).toEqual([RETRYING_MESSAGE, RETRYING_MESSAGE, null]);
  });

  it("HARDEN-2: any other failure, or a view that went away, ends it with the error", async () => {
    const noSleep = async () => {};
    await expect(
      untilAvailable(
        () => Promise.reject(new ApiError(404, "run.not_found", "No such run")),
        retryingNotice(() => {}),
        () => false,
        noSleep,
      ),
    ).rejects.toThrow("No such run");
    const unavailable = new ApiError(503, "database.unavailable", "not answering");
    await expect(
      untilAvailable(
        () => Promise.reject(unavailable),
        retryingNotice(() => {}),
        () => true,
        noSleep,
      ),
    ).rejects.toBe(unavailable);
  });
});

describe("HARDEN-2: one notice for every read of a view", () => {
  const unavailable = () => new ApiError(503, "database.unavailable", "not answering", { retry_after_s: 3 });

  it("HARDEN-2: a late 503 does not cover a newer answer, nor a late answer a newer 503", () => {
    const shown: Array<string | null> = [];
    const notice = retryingNotice((message) => shown.push(message));
    const older = notice.begin();
    const newer = notice.begin();
    expect(notice.settle(newer, unavailable())).toBe(3_000);
    expect(notice.settle(older)).toBeNull();
    expect(shown).toEqual([RETRYING_MESSAGE]);
    const next = notice.begin();
    const last = notice.begin();
    notice.settle(last);
    // The wait still stands for the read that failed late; the view shows the newer answer.
    expect(notice.settle(next, unavailable())).toBe(3_000);
    expect(shown).toEqual([RETRYING_MESSAGE, null]);
  });

  it("HARDEN-2: other failures leave the notice; an answer clears only the notice, never a failure shown since", () => {
    const shown: Array<string | null> = [];
    const notice = retryingNotice((message) => shown.push(message));
    expect(notice.settle(notice.begin(), new ApiError(0, "network.failed", "offline"))).toBeNull();
    notice.settle(notice.begin());
    expect(shown).toEqual([]);

    let line: string | null = null;
    const show = failureNotice((update) => {
      line = update(line);
    });
    show(RETRYING_MESSAGE);
    expect(line).toBe(RETRYING_MESSAGE);
    show(null);
    expect(line).toBeNull();
    line = "This run no longer exists.";
    show(null);
    expect(line).toBe("This run no longer exists.");
  });
});
