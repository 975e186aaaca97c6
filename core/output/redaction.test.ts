import { describe, expect, it } from "vitest";
import { platformRedactor, Redactor, variants } from "./redaction";

const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const b64url = (text: string) => b64(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

describe("Redactor", () => {
  it("ERR-004: replaces every occurrence of a value with [REDACTED:<name>]", () => {
    const r = new Redactor([{ name: "API_KEY", value: "sk-live-123456" }]);
    expect(r.redact("a sk-live-123456 b sk-live-123456")).toBe("a [REDACTED:API_KEY] b [REDACTED:API_KEY]");
  });

  it("ERR-004: longest value first, so a secret containing another keeps its own name", () => {
    const r = new Redactor([
      { name: "SHORT", value: "abcd" },
      { name: "LONG", value: "abcdefgh" },
    ]);
    expect(r.redact("x abcdefgh y abcd")).toBe("x [REDACTED:LONG] y [REDACTED:SHORT]");
  });

  it("ERR-004: redacts base64 (standard and url-safe, padded or not) and URL-encoded forms", () => {
    const value = "s3cr3t>>?";
    const r = new Redactor([{ name: "TOKEN", value }]);
    expect(b64(value)).toContain("/"); // the standard and url-safe alphabets differ here
    for (const form of [b64(value), b64url(value), encodeURIComponent(value)]) {
      expect(r.redact(`v=${form};`)).toBe("v=[REDACTED:TOKEN];");
    }
    expect(r.redact(`${b64("padded")}`)).toBe(b64("padded")); // unrelated base64 stays
  });

  it("ERR-004: redacts a value base64-encoded inside a longer string (Basic auth), at any byte offset", () => {
    const value = "ghp_0123456789abcdef";
    const r = new Redactor([{ name: "GH", value }]);
    for (const user of ["al:", "bob:", "carol:"]) {
      const header = `Authorization: Basic ${b64(`${user}${value}`)}`;
      const out = r.redact(header);
      expect(out).toContain("[REDACTED:GH]");
      // What is left of the encoded value is a few boundary characters, never the value's bytes.
      const leftover = out.split("Basic ")[1]!.replace("[REDACTED:GH]", "");
      expect(leftover.length).toBeLessThanOrEqual(b64(user).length + 4);
    }
  });

  it("escapes regex syntax in values", () => {
    const r = new Redactor([{ name: "RX", value: "a.b*c(d)[e]|f" }]);
    expect(r.redact("aXb*c(d)[e]|f a.b*c(d)[e]|f")).toBe("aXb*c(d)[e]|f [REDACTED:RX]");
  });

  it("ignores values shorter than 4 characters", () => {
    const r = new Redactor([{ name: "PIN", value: "123" }]);
    expect(r.size).toBe(0);
    expect(r.redact("pin 123")).toBe("pin 123");
  });

  it("an empty set is the identity", () => {
    const input = { a: ["x"] };
    expect(Redactor.none.redact("anything")).toBe("anything");
    expect(Redactor.none.redactDeep(input)).toBe(input);
  });

  it("replaces in one pass: a marker is never redacted again", () => {
    const r = new Redactor([
      { name: "A", value: "aaaa" },
      { name: "B", value: "[REDACTED:A]" },
    ]);
    expect(r.redact("aaaa")).toBe("[REDACTED:A]");
  });

  it("redactDeep redacts strings and keys inside objects and arrays without touching the input", () => {
    const r = new Redactor([{ name: "PW", value: "hunter22" }]);
    const input = { user: "me", pw: "hunter22", list: ["x hunter22", 3, null, true], hunter22: { deep: "hunter22" } };
    expect(r.redactDeep(input)).toEqual({
      user: "me",
      pw: "[REDACTED:PW]",
      list: ["x [REDACTED:PW]", 3, null, true],
      "[REDACTED:PW]": { deep: "[REDACTED:PW]" },
    });
    expect(input.pw).toBe("hunter22");
  });

  it("scales to many secrets with one pattern, naming each", () => {
    const secrets = Array.from({ length: 500 }, (_, i) => ({ name: `S${i}`, value: `value-${i}-${"x".repeat(i % 7)}z` }));
    const r = new Redactor(secrets);
    const text = secrets.map((s) => s.value).join(" ");
    expect(r.redact(text)).toBe(secrets.map((s) => `[REDACTED:${s.name}]`).join(" "));
  });

  it("withSecrets adds values (e.g. tokens minted during the generation)", () => {
    const r = new Redactor([{ name: "A", value: "alpha-1" }]).withSecrets([{ name: "GH", value: "ghs_token" }]);
    expect(r.redact("alpha-1 ghs_token")).toBe("[REDACTED:A] [REDACTED:GH]");
    expect(r.size).toBe(2);
  });

  it("never shows values when serialised", () => {
    const r = new Redactor([{ name: "A", value: "super-secret-value" }]);
    expect(JSON.stringify(r)).not.toContain("super-secret-value");
    expect(JSON.stringify(r)).toContain("A");
  });

  it("variants include the value, its URL encoding and base64 forms", () => {
    const v = variants("a b+c/d");
    expect(v).toContain("a b+c/d");
    expect(v).toContain("a%20b%2Bc%2Fd");
    expect(v).toContain(b64("a b+c/d"));
  });

  it("OP-REPO-6: the platform's GitHub App private key is redacted from the platform's lines", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest0123456789\n-----END RSA PRIVATE KEY-----\n";
    const line = platformRedactor({ GITHUB_APP_PRIVATE_KEY: pem }).redact(`import failed for ${pem}`);
    expect(line).toBe("import failed for [REDACTED:GITHUB_APP_PRIVATE_KEY]");
  });

  it("OP-REPO-6: the App's OAuth client secret is redacted from the platform's lines", () => {
    const secret = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c";
    const line = platformRedactor({ GITHUB_APP_CLIENT_SECRET: secret }).redact(`client_secret=${secret}&code=x`);
    expect(line).toBe("client_secret=[REDACTED:GITHUB_APP_CLIENT_SECRET]&code=x");
  });

  it("ERR-004 / OP-REPO-6: the platform's redactor is built once per environment, and a set grown from it still redacts every form of both", () => {
    const env = { MODEL_API_KEY: "sk-platform-key-0123456789", DATABASE_URL: "postgres://u:pw-0123456789@db/x" };
    const first = platformRedactor(env);
    expect(platformRedactor({ ...env })).toBe(first);
    const grown = first.withSecrets([{ name: "AGENT_TOKEN", value: "agent-token-abcdef" }]);
    const text = `${env.MODEL_API_KEY} ${b64(env.DATABASE_URL)} ${b64("agent-token-abcdef")} ${encodeURIComponent("agent-token-abcdef")}`;
    expect(grown.redact(text)).toBe("[REDACTED:MODEL_API_KEY] [REDACTED:DATABASE_URL] [REDACTED:AGENT_TOKEN] [REDACTED:AGENT_TOKEN]");
    // A changed value is redacted at once, the old one no longer.
    const rotated = platformRedactor({ ...env, MODEL_API_KEY: "sk-rotated-key-9876543210" });
    expect(rotated.redact("sk-rotated-key-9876543210 sk-platform-key-0123456789")).toBe("[REDACTED:MODEL_API_KEY] sk-platform-key-0123456789");
  });

  it("ISSUE-33: the App's webhook secret is redacted from the platform's lines", () => {
    const secret = "whsec-7c1d0e9f2b3a4c5d6e7f8091a2b3c4d5";
    const line = platformRedactor({ GITHUB_WEBHOOK_SECRET: secret }).redact(`secret ${secret} refused`);
    expect(line).toBe("secret [REDACTED:GITHUB_WEBHOOK_SECRET] refused");
  });
});
