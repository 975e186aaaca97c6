import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

/** Values a client (or an attacker) may put in a list's paging parameters. */
const MALFORMED_NUMBERS = ["abc", "-5", "1.5", "99999999999999999999", "2147483648", "1e3x", "0x1g", "NaN", "Infinity", " "];
const MALFORMED_CURSORS = [
  "!!!",
  "a",
  btoa("junk"),
  btoa("2024-01-01T00:00:00.000Z|not-a-uuid"),
  btoa("+275760-09-13T00:00:00.000Z|00000000-0000-4000-8000-000000000000"),
  btoa("-271821-04-20T00:00:00.000Z|00000000-0000-4000-8000-000000000000"),
  btoa("2024-01-01|00000000-0000-4000-8000-000000000000"),
  btoa("0000-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000"),
  btoa("2024-02-30T00:00:00.000Z|00000000-0000-4000-8000-000000000000"),
  "x".repeat(300),
];

/** One GET whose body is read only when it is not a stream that was let through. */
async function probe(path: string, token: string, headers: Record<string, string> = {}) {
  const res = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test${path}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, json: null };
  }
  return { status: res.status, json: (await res.json()) as any };
}

describe("HARDEN-5: malformed list parameters", () => {
  let token: string;
  let guildId: string;
  let agentId: string;
  let runId: string;
  let scheduleId: string;

  beforeAll(async () => {
    ({ token, guildId } = await seedGuild("Paging"));
    agentId = (await newAgent(token, guildId)).id;
    runId = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json.id;
    scheduleId = (
      await call("POST", `/api/agents/${agentId}/schedules`, {
        token,
        body: { description: "Daily", instruction: "Check", cron: "0 9 * * *" },
      })
    ).json.id;
  }, 30_000);

  const lists = () => [
    { path: "/api/guilds", numbers: ["limit"], cursor: true },
    { path: "/api/agents", numbers: ["limit"], cursor: true },
    { path: `/api/agents/${agentId}/runs`, numbers: ["limit"], cursor: true },
    { path: `/api/schedules/${scheduleId}/runs`, numbers: ["limit"], cursor: true },
    { path: "/api/tokens", numbers: ["limit"], cursor: true },
    { path: "/api/secrets", numbers: ["limit"], cursor: true },
    { path: `/api/runs/${runId}/messages`, numbers: ["after_seq", "limit"], cursor: false },
    { path: `/api/guilds/${guildId}/chat`, numbers: ["after_seq", "before_seq", "limit"], cursor: false },
    { path: `/api/schedules/${scheduleId}/preview`, numbers: ["count"], cursor: false },
    { path: `/api/runs/${runId}/events`, numbers: ["after_seq"], cursor: false },
    { path: `/api/guilds/${guildId}/events`, numbers: ["after_seq"], cursor: false },
  ];

  it("HARDEN-5: every list answers a malformed number or cursor with 422 naming the parameter, never a 500", async () => {
    const failures: string[] = [];
    for (const list of lists()) {
      const probes = [
        ...list.numbers.flatMap((name) => MALFORMED_NUMBERS.map((value) => ({ name, value }))),
        ...(list.cursor ? MALFORMED_CURSORS.map((value) => ({ name: "cursor", value })) : []),
      ];
      const answers = await Promise.all(
        probes.map(async ({ name, value }) => {
          const res = await probe(`${list.path}?${name}=${encodeURIComponent(value)}`, token);
          return { name, value, res };
        }),
      );
      for (const { name, value, res } of answers) {
        const fields: string[] = res.json?.error?.details?.fields?.map((f: { field: string }) => f.field) ?? [];
        if (res.status !== 422 || !fields.includes(name))
          failures.push(`${list.path}?${name}=${value} -> ${res.status} ${JSON.stringify(res.json).slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("HARDEN-5: a malformed Last-Event-ID is 422 naming the header", async () => {
    for (const path of [`/api/runs/${runId}/events`, `/api/guilds/${guildId}/events`]) {
      for (const value of ["abc", "99999999999999999999", "1.5"]) {
        const res = await probe(path, token, { "last-event-id": value });
        expect(res.status, `${path} ${value}`).toBe(422);
        expect(res.json.error.details.fields[0].field).toBe("Last-Event-ID");
      }
    }
  });

  it("HARDEN-5: a prompt replay of an out-of-range seq is 404, not 500", async () => {
    for (const seq of ["99999999999999999999", "2147483648", "-1", "1e3", "abc"]) {
      const res = await call("GET", `/api/runs/${runId}/messages/${seq}/prompt`, { token });
      expect(res.status, seq).toBe(404);
    }
  });

  it("HARDEN-5: well-formed cursors still page", async () => {
    for (let i = 0; i < 3; i++) await call("POST", "/api/guilds", { token, body: { name: `G${i}` } });
    const first = await call("GET", "/api/guilds?limit=2", { token });
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await call("GET", `/api/guilds?limit=2&cursor=${first.json.next_cursor}`, { token });
    expect(second.status).toBe(200);
    expect(second.json.data.length).toBeGreaterThan(0);
    expect(second.json.data[0].id).not.toBe(first.json.data[1].id);
  });
});
