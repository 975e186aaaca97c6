import { describe, expect, it } from "vitest";
import { imagesLeft, MAX_IMAGE_BYTES, type PendingImage, readyIds, refusal, sendable, transferredFiles } from "./attachments";

const ready = (id: string): PendingImage => ({ key: id, filename: `${id}.png`, state: "ready", id });
const uploading: PendingImage = { key: "u", filename: "u.png", state: "uploading" };
const failed: PendingImage = { key: "f", filename: "f.txt", state: "failed", error: "not an image" };

describe("the composer's images", () => {
  it("UI-009: an empty caption sends with a stored image, not without one, and nothing sends while an image uploads", () => {
    expect(sendable("", [ready("a")])).toBe(true);
    expect(sendable("  ", [])).toBe(false);
    expect(sendable("", [failed])).toBe(false);
    expect(sendable("hi", [])).toBe(true);
    expect(sendable("hi", [ready("a"), uploading])).toBe(false);
  });

  it("UI-009: sends the stored images' ids in order; refused ones take no place of the 8", () => {
    expect(readyIds([ready("a"), failed, uploading, ready("b")])).toEqual(["a", "b"]);
    expect(imagesLeft([ready("a"), failed, uploading])).toBe(6);
  });

  it("UI-009: a file of another type, an oversized or an empty one is refused before any upload, with the reason", () => {
    expect(refusal({ type: "image/png", size: 100 })).toBeNull();
    expect(refusal({ type: "image/webp", size: MAX_IMAGE_BYTES })).toBeNull();
    expect(refusal({ type: "application/pdf", size: 100 })).toBe("not a PNG, JPEG, GIF or WebP image (application/pdf)");
    expect(refusal({ type: "", size: 100 })).toBe("not a PNG, JPEG, GIF or WebP image (unknown type)");
    expect(refusal({ type: "image/jpeg", size: 12 * 1024 * 1024 })).toBe("larger than 10 MiB (12.0 MiB)");
    expect(refusal({ type: "image/gif", size: 0 })).toBe("the file is empty");
  });

  it("UI-009: a drop's or a paste's files come from its file list, else from its items of kind file", () => {
    const a = new File(["a"], "a.png", { type: "image/png" });
    expect(transferredFiles({ files: [a], items: [] })).toEqual([a]);
    const item = (kind: string, file: File | null) => ({ kind, getAsFile: () => file });
    expect(transferredFiles({ files: [], items: [item("string", null), item("file", a), item("file", null)] })).toEqual([a]);
    expect(transferredFiles({ files: null, items: null })).toEqual([]);
  });
});
