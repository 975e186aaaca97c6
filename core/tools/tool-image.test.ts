import { describe, expect, it } from "vitest";
import { imageRefs } from "../projection/projection";
import { decodeToolImage, TOOL_IMAGE_MAX_BYTES } from "./tool-image";

/** A 1x1 PNG. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

describe("a tool's image (OP-EXACT-2: screenshots go to the model)", () => {
  it("OP-EXACT-2: a PNG becomes bytes and an image attachment ref named after the call", () => {
    const decoded = decodeToolImage({ mediaType: "image/png", dataBase64: PIXEL_PNG }, "browser_screenshot", "call:7/x", "id-1");
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.ref).toEqual({ id: "id-1", filename: "browser_screenshot-call_7_x.png", mime: "image/png", kind: "image" });
    expect(decoded.bytes.subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
    // A tool row carrying it hands the ref to the hydrator like a user row's upload.
    const row = {
      seq: 3,
      generation: 1,
      role: "tool" as const,
      payload: { role: "tool" as const, tool_call_id: "c", content: "x" },
      metadata: { attachments: [decoded.ref] },
      tokenCount: 1,
    };
    expect(imageRefs(row)).toEqual([decoded.ref]);
  });

  it("HARDEN: bytes that are not the image they claim, bad base64 and oversized images are refused with a reason", () => {
    expect(decodeToolImage({ mediaType: "image/jpeg", dataBase64: PIXEL_PNG }, "t", "c", "i")).toEqual({
      ok: false,
      reason: "the image is not the image/jpeg it claims to be",
    });
    expect(decodeToolImage({ mediaType: "image/png", dataBase64: btoa("<svg/>") }, "t", "c", "i")).toMatchObject({ ok: false });
    expect(decodeToolImage({ mediaType: "image/png", dataBase64: "%%%not base64" }, "t", "c", "i")).toEqual({
      ok: false,
      reason: "the image is not valid base64",
    });
    expect(decodeToolImage({ mediaType: "image/png", dataBase64: "A".repeat((TOOL_IMAGE_MAX_BYTES / 3) * 4 + 8) }, "t", "c", "i")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("larger than"),
    });
  });
});
