/**
 * A refused push answered as receive-pack would: report-status (`unpack ok`, one `ng <ref>
 * <reason>` per command), inside side-band-64k when the client asked for it, so git prints
 * `! [remote rejected] <ref> (<reason>)` and exits non-zero.
 */
import type { Refusal } from "./check-push";
import type { Command } from "./pkt-line";
import { FLUSH, pkt } from "./pkt-line";

/** What git shows for the commands refused only because another one was (the push is all or nothing). */
export const ATOMIC_REASON = "atomic push failure";
const BAND_DATA = 1;
const BAND_PROGRESS = 2;
/** A band's payload per pkt-line: the limit less the length and the band byte (side-band's limit is 1000). */
const BAND_CHUNK = { "side-band-64k": 65515, "side-band": 995 };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One line of text: no control characters, bounded, as a reason travels in a pkt-line. */
function oneLine(text: string): string {
  return text.replace(/[\0-\x1f\x7f]+/g, " ").slice(0, 200);
}

function banded(band: number, data: Uint8Array, chunk: number): Uint8Array[] {
  const lines: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += chunk) {
    const part = data.subarray(at, at + chunk);
    const payload = new Uint8Array(part.length + 1);
    payload[0] = band;
    payload.set(part, 1);
    lines.push(pkt(payload));
  }
  return lines;
}

/** The body of a refused push: every command is refused, with its own reason or the atomic one. */
export function refusalBody(commands: Command[], refusals: Refusal[], capabilities: string[]): Uint8Array {
  const reasons = new Map(refusals.map((r) => [r.ref, oneLine(r.reason)]));
  const status = concat([pkt("unpack ok\n"), ...commands.map((c) => pkt(`ng ${c.ref} ${reasons.get(c.ref) ?? ATOMIC_REASON}\n`)), FLUSH]);
  const sideBand = capabilities.includes("side-band-64k") ? "side-band-64k" : capabilities.includes("side-band") ? "side-band" : null;
  if (!sideBand) return status;
  const chunk = BAND_CHUNK[sideBand];
  const message = new TextEncoder().encode(refusals.map((r) => `gateway: ${r.ref}: ${oneLine(r.reason)}\n`).join(""));
  return concat([...(capabilities.includes("quiet") ? [] : banded(BAND_PROGRESS, message, chunk)), ...banded(BAND_DATA, status, chunk), FLUSH]);
}

/**
 * The whole answer: receive-pack's result content type, HTTP 200 as git expects of a refused
 * push; `body` streams the refusal body when the answer must outlast the request's rest.
 */
export function refusalResponse(commands: Command[], refusals: Refusal[], capabilities: string[], body?: ReadableStream<Uint8Array>): Response {
  return new Response(body ?? refusalBody(commands, refusals, capabilities), {
    status: 200,
    headers: { "content-type": "application/x-git-receive-pack-result", "cache-control": "no-cache" },
  });
}
