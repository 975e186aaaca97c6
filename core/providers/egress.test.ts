import { describe, expect, it } from "vitest";
import { addressKind, allowanceFrom, checkModelUrl } from "./egress";

const none = allowanceFrom(undefined);

describe("model base URL egress", () => {
  it.each([
    ["http://127.0.0.1:8080/v1", "loopback"],
    ["http://localhost/v1", "loopback"],
    ["http://LOCALHOST./v1", "loopback"],
    ["http://api.localhost/v1", "loopback"],
    ["http://[::1]/v1", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:7f00:1]:9/v1", "loopback"],
    ["http://10.1.2.3/", "private"],
    ["http://172.16.0.1/", "private"],
    ["http://172.31.255.255/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://100.64.0.1/", "private"],
    ["http://[fd12::1]/", "private"],
    ["http://[::ffff:10.0.0.1]/", "private"],
    ["http://[64:ff9b::10.0.0.1]/", "private"],
    ["http://[::ffff:0:7f00:1]/", "loopback"],
    ["http://[::ffff:0:10.0.0.1]/", "private"],
    ["http://[64:ff9b:1::a9fe:a9fe]/", "metadata"],
    ["http://[64:ff9b:1::8.8.8.8]/", "private"],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "reserved"],
    ["http://[2001::1]/", "reserved"],
    ["http://[fec0::1]/", "private"],
    ["http://[feff::1]/", "private"],
    ["http://ollama/", "private"],
    ["http://llm.corp.internal/", "private"],
    ["http://169.254.169.254/latest/meta-data", "metadata"],
    ["http://[::ffff:169.254.169.254]/", "metadata"],
    ["http://metadata.google.internal/computeMetadata/v1", "metadata"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://169.254.10.10/", "link-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://224.0.0.1/", "reserved"],
  ])("HARDEN-4: %s is refused as %s by default", (url, kind) => {
    const verdict = checkModelUrl(url, none);
    expect(verdict).toMatchObject({ ok: false, kind });
    expect(addressKind(new URL(url).hostname)).toBe(kind);
  });

  it.each([
    "https://api.openai.com/v1",
    "https://openrouter.ai/api/v1",
    "http://8.8.8.8:8080/v1",
    "http://172.32.0.1/",
    "http://[2606:4700::1111]/v1",
    "https://metadata-service.example.com/v1",
  ])("HARDEN-4: public %s is allowed", (url) => {
    expect(checkModelUrl(url, none)).toEqual({ ok: true });
  });

  it("HARDEN-4: refuses other schemes, credentials in the URL and what is not a URL", () => {
    expect(checkModelUrl("ftp://api.example.com/v1", none)).toMatchObject({ ok: false, kind: "scheme" });
    expect(checkModelUrl("file:///etc/passwd", none)).toMatchObject({ ok: false, kind: "scheme" });
    expect(checkModelUrl("https://user:pw@api.example.com/v1", none)).toMatchObject({ ok: false, kind: "credentials" });
    expect(checkModelUrl("https://token@api.example.com/v1", none)).toMatchObject({ ok: false, kind: "credentials" });
    expect(checkModelUrl("not a url", none)).toMatchObject({ ok: false, kind: "invalid" });
  });

  it("HARDEN-4: the operator's allowance opens only the kinds it names; * opens all", () => {
    const loopback = allowanceFrom("loopback");
    expect(checkModelUrl("http://127.0.0.1:9/v1", loopback)).toEqual({ ok: true });
    expect(checkModelUrl("http://[::ffff:127.0.0.1]/v1", loopback)).toEqual({ ok: true });
    expect(checkModelUrl("http://10.0.0.1/v1", loopback)).toMatchObject({ ok: false, kind: "private" });
    expect(checkModelUrl("http://169.254.169.254/", loopback)).toMatchObject({ ok: false, kind: "metadata" });
    const both = allowanceFrom(" Loopback , private ,typo");
    expect([...both].sort()).toEqual(["loopback", "private"]);
    expect(checkModelUrl("http://192.168.0.10/v1", both)).toEqual({ ok: true });
    expect(checkModelUrl("http://169.254.169.254/", both)).toMatchObject({ ok: false, kind: "metadata" });
    expect(checkModelUrl("http://169.254.169.254/", allowanceFrom("*"))).toEqual({ ok: true });
    // Credentials and schemes are never opened by the allowance.
    expect(checkModelUrl("http://u:p@127.0.0.1/", allowanceFrom("*"))).toMatchObject({ ok: false, kind: "credentials" });
  });
});
