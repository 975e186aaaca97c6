import { describe, expect, it } from "vitest";
import { contentDisposition, uploadFilename } from "./content-disposition";

describe("HARDEN-5: file names in headers", () => {
  it("HARDEN-5: keeps the last path segment and drops control characters", () => {
    expect(uploadFilename("C:\\fakepath\\cat.png", "image")).toBe("cat.png");
    expect(uploadFilename("../../etc/passwd", "image")).toBe("passwd");
    expect(uploadFilename("a\r\nSet-Cookie: x.png", "image")).toBe("aSet-Cookie: x.png");
    expect(uploadFilename("", "image")).toBe("image");
  });

  it("HARDEN-5: quotes an ASCII fallback and encodes the exact name in filename*", () => {
    expect(contentDisposition("inline", 'say "hi" ü.png')).toBe(`inline; filename="say _hi_ _.png"; filename*=UTF-8''say%20%22hi%22%20%C3%BC.png`);
    expect(contentDisposition("attachment", "it's (1).gif")).toBe(`attachment; filename="it's (1).gif"; filename*=UTF-8''it%27s%20%281%29.gif`);
  });
});
