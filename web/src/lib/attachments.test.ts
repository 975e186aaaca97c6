import { describe, expect, it } from "vitest";
import { imagesLeft, type PendingImage, readyIds, sendable } from "./attachments";

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
});
