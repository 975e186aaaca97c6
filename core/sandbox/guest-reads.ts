/**
 * Bounded reads of what the box answers (its guest is the tenant's code once a command ran
 * in it): every body the platform reads from the guest stops at a cap, whatever the box
 * sends, and a read past the cap says so instead of growing in the object's memory.
 */
import { readWithin } from "../http/read-within";
import { SandboxError } from "../tools/sandbox-error";

/** The caps of the guest client's reads. */
export interface GuestReadCaps {
  /** Command output kept when the call names no `maxOutputBytes` (the guest's own default). */
  execOutputBytes: number;
  /** A file's bytes (`GET /files`) when the call names no cap. */
  fileBytes: number;
  /** A JSON answer: a listing, a page as text, a screenshot. */
  jsonBytes: number;
  /** An error answer's body, of which 200 characters are shown. */
  errorBytes: number;
}

export const GUEST_READ_CAPS: GuestReadCaps = {
  execOutputBytes: 1 << 20,
  fileBytes: 16 << 20,
  jsonBytes: 16 << 20,
  errorBytes: 16 << 10,
};

/**
 * Room above an exec's output cap for the guest's own truncation marker line, and for a JSON
 * frame's escaping of one byte as up to six characters.
 */
export const EXEC_MARKER_ROOM = 1024;
export const FRAME_ESCAPE_FACTOR = 6;

/**
 * The body's bytes, at most `maxBytes`: past it the read stops, the body is cancelled and
 * the call rejects with `sandbox.answer_too_large` naming the cap.
 *
 * @example await readCapped(res, 64 << 10, "GET /files") // Uint8Array, or rejects past 64 KiB
 */
export async function readCapped(res: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(what, maxBytes);
  }
  const bytes = await readWithin(res.body, maxBytes);
  if (!bytes) throw tooLarge(what, maxBytes);
  return bytes;
}

/** A JSON answer read within `maxBytes`; one that does not parse is `sandbox.guest_error`. */
export async function readJsonCapped<T>(res: Response, maxBytes: number, what: string): Promise<T> {
  const text = new TextDecoder().decode(await readCapped(res, maxBytes, what));
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SandboxError("sandbox.guest_error", `the box's answer to ${what} is not JSON`);
  }
}

/** An error answer's text, at most `maxBytes` of it read (the rest is cancelled, not awaited). */
export async function readErrorText(res: Response, maxBytes: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      total += value.byteLength;
      text += decoder.decode(value.subarray(0, Math.max(0, value.byteLength - (total - maxBytes))), { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text;
  } catch {
    return text;
  }
}

function tooLarge(what: string, maxBytes: number): SandboxError {
  return new SandboxError("sandbox.answer_too_large", `the box's answer to ${what} passed ${maxBytes} bytes; the platform stopped reading it there`);
}
