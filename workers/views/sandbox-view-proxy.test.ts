import { describe, expect, it } from "vitest";
import { PASSED_HEADERS, VIEW_HEADERS, withViewHeaders } from "./sandbox-view-proxy";

describe("the view proxy's answers (SBX-026)", () => {
  it("SBX-026: only allowlisted headers of the box reach the client: Location, Refresh, Clear-Site-Data, cookies and unknown ones are dropped", async () => {
    const box = new Response("<html>", {
      status: 302,
      headers: {
        "content-type": "text/html",
        "content-language": "en",
        etag: '"v1"',
        location: "https://elsewhere.example/",
        refresh: "0; url=https://elsewhere.example/",
        "clear-site-data": '"*"',
        "set-cookie": "session=stolen",
        link: "<https://elsewhere.example/>; rel=preload",
        "x-made-up-header": "anything",
        "content-security-policy": "default-src *",
        "access-control-allow-credentials": "true",
      },
    });
    const answer = withViewHeaders(box);
    const names = [...answer.headers.keys()];
    for (const name of names) expect([...PASSED_HEADERS, ...Object.keys(VIEW_HEADERS).map((h) => h.toLowerCase())], name).toContain(name);
    for (const name of ["location", "refresh", "clear-site-data", "set-cookie", "link", "x-made-up-header", "access-control-allow-credentials"])
      expect(answer.headers.get(name), name).toBeNull();
    expect(answer.headers.get("content-type")).toBe("text/html");
    expect(answer.headers.get("etag")).toBe('"v1"');
    // The proxy's own security headers, not the box's.
    expect(answer.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    expect(await answer.text()).toBe("<html>");
  });
});
