import { describe, expect, it } from "vitest";
import { secretProblems, secretsReport } from "./required";

const KEK = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

describe("HARDEN-5: the required secrets, as health reports them", () => {
  it("HARDEN-5: all set and readable: no problem", async () => {
    expect(await secretsReport({ SECRETS_KEK: `v1:${KEK}`, MODEL_API_KEY: "sk-x", MODEL_BASE_URL: "https://api.openai.com/v1" })).toEqual({
      missing: [],
      unreadable: [],
    });
  });

  it("HARDEN-5: names a missing SECRETS_KEK and a missing MODEL_API_KEY for a public provider", async () => {
    const report = await secretsReport({ MODEL_BASE_URL: "https://api.openai.com/v1" });
    expect(report).toEqual({ missing: ["SECRETS_KEK", "MODEL_API_KEY"], unreadable: [] });
    expect(secretProblems(report)).toEqual(["SECRETS_KEK is not set", "MODEL_API_KEY is not set"]);
  });

  it("HARDEN-5: a SECRETS_KEK that does not parse is unreadable, and its value is never repeated", async () => {
    const bad = "not-base64-%%%-s3cr3t";
    const report = await secretsReport({ SECRETS_KEK: bad, MODEL_API_KEY: "k", MODEL_BASE_URL: "https://api.openai.com/v1" });
    expect(report).toEqual({ missing: [], unreadable: ["SECRETS_KEK"] });
    expect(JSON.stringify(secretProblems(report))).not.toContain("s3cr3t");
    expect((await secretsReport({ SECRETS_KEK: "AAAA" })).unreadable).toEqual(["SECRETS_KEK"]);
    expect((await secretsReport({ SECRETS_KEK: `v1:${KEK}`, SECRETS_KEK_PREVIOUS: `v1:${KEK}` })).unreadable).toEqual(["SECRETS_KEK or SECRETS_KEK_PREVIOUS"]);
  });

  it("HARDEN-5: a provider on the platform's own machines (the local mock) or none at all needs no MODEL_API_KEY", async () => {
    expect((await secretsReport({ SECRETS_KEK: KEK, MODEL_BASE_URL: "http://127.0.0.1:4010/v1" })).missing).toEqual([]);
    expect((await secretsReport({ SECRETS_KEK: KEK, MODEL_BASE_URL: "http://localhost:4010/v1" })).missing).toEqual([]);
    expect((await secretsReport({ SECRETS_KEK: KEK })).missing).toEqual([]);
  });
});
