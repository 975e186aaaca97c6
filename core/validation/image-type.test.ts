import { describe, expect, it } from "vitest";
import { sniffImageType } from "./image-type";

const bytes = (...parts: Array<number[] | string>) => Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

describe("HARDEN-5: image type from the file's bytes", () => {
  it("HARDEN-5: recognises png, jpeg, gif (87a and 89a) and webp by their magic numbers", () => {
    expect(sniffImageType(bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toBe("image/png");
    expect(sniffImageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniffImageType(bytes("GIF87a"))).toBe("image/gif");
    expect(sniffImageType(bytes("GIF89a", [1, 0]))).toBe("image/gif");
    expect(sniffImageType(bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "))).toBe("image/webp");
  });

  it("HARDEN-5: anything else, a truncated signature or a RIFF that is not WEBP is not an image", () => {
    expect(sniffImageType(bytes("<svg xmlns="))).toBeNull();
    expect(sniffImageType(bytes("<html><script>"))).toBeNull();
    expect(sniffImageType(bytes([0x89], "PN"))).toBeNull();
    expect(sniffImageType(bytes("RIFF", [0, 0, 0, 0], "WAVE"))).toBeNull();
    expect(sniffImageType(new Uint8Array())).toBeNull();
  });
});
