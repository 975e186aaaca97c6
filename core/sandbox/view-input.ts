/**
 * Which messages of a proxied view are operator input (SBX-030, UI-015). A Browser or CLI
 * tab keeps its WebSocket busy on its own (noVNC asks for frame updates all the time), so
 * "a message from the client" is not input: only keys, pointer and clipboard for noVNC, and
 * typed text in the terminal, are. Pure, so it runs in Node.
 */
import { BoundedMap } from "../cache/bounded-map";

/** Reads one view's client-to-box messages and says whether each carried operator input. */
export interface InputDetector {
  /** True when this message holds at least one input event. */
  isInput(message: Uint8Array | string): boolean;
}

const bytesOf = (message: Uint8Array | string) => (typeof message === "string" ? new TextEncoder().encode(message) : message);

/**
 * The CLI view's terminal: the box's web terminal sends JSON, `{"type":"input","data"}` for
 * typed text and `{"type":"resize",…}` otherwise; ttyd's protocol, `0` + typed bytes, is
 * read too. Only typed text is input.
 *
 * @example terminalInput().isInput('{"type":"input","data":"ls\\r"}') // true
 */
export function terminalInput(): InputDetector {
  return {
    isInput(message) {
      const bytes = bytesOf(message);
      if (bytes[0] === 0x30) return true;
      if (bytes[0] !== 0x7b) return false;
      try {
        return (JSON.parse(new TextDecoder().decode(bytes)) as { type?: unknown }).type === "input";
      } catch {
        return false;
      }
    },
  };
}

/** Client-to-server RFB message lengths once the header is read, or null when not yet known. */
type Sizer = (buf: Uint8Array) => number | null;

const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u32 = (b: Uint8Array, at: number) => (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]! | 0;

/** RFC 6143 client messages plus the extensions noVNC sends; `input` marks operator input. */
const MESSAGES: Record<number, { size: Sizer; input: boolean }> = {
  0: { size: () => 20, input: false }, // SetPixelFormat
  2: { size: (b) => (b.length < 4 ? null : 4 + 4 * u16(b, 2)), input: false }, // SetEncodings
  3: { size: () => 10, input: false }, // FramebufferUpdateRequest
  4: { size: () => 8, input: true }, // KeyEvent
  5: { size: () => 6, input: true }, // PointerEvent
  6: { size: (b) => (b.length < 8 ? null : 8 + Math.abs(u32(b, 4))), input: true }, // ClientCutText (negative: extended)
  150: { size: () => 10, input: false }, // EnableContinuousUpdates
  248: { size: (b) => (b.length < 9 ? null : 9 + b[8]!), input: false }, // ClientFence
  250: { size: () => 4, input: false }, // xvp
  251: { size: (b) => (b.length < 8 ? null : 8 + 16 * b[6]!), input: false }, // SetDesktopSize
  255: { size: (b) => (b.length < 2 ? null : b[1] === 0 ? 12 : Number.NaN), input: true }, // QEMU extended key event
};

/**
 * The RFB client stream as websockify carries it: message boundaries do not follow the
 * WebSocket's, so the detector keeps the unread tail. It skips the handshake (version,
 * security type None or VNC authentication, ClientInit); on anything it cannot parse it
 * stops counting input rather than guess, so a strange client cannot keep a box alive.
 *
 * @example const d = rfbInput(); d.isInput(handshake); d.isInput(new Uint8Array([4, 1, 0, 0, 0, 0, 0, 0x61])) // true
 */
export function rfbInput(): InputDetector {
  let pending = new Uint8Array(0);
  let phase: "version" | "security" | "auth" | "init" | "messages" | "lost" = "version";
  const take = (n: number) => {
    pending = pending.subarray(n);
  };
  return {
    isInput(message) {
      if (phase === "lost") return false;
      const incoming = bytesOf(message);
      const joined = new Uint8Array(pending.length + incoming.length);
      joined.set(pending);
      joined.set(incoming, pending.length);
      pending = joined;
      let input = false;
      for (;;) {
        if (phase === "version") {
          if (pending.length < 12) break;
          const version = new TextDecoder().decode(pending.subarray(0, 12));
          take(12);
          // Version 3.3 has the server choose the security type: the client sends none.
          phase = version === "RFB 003.003\n" ? "init" : "security";
        } else if (phase === "security") {
          if (pending.length < 1) break;
          const type = pending[0];
          take(1);
          if (type === 1) phase = "init";
          else if (type === 2) phase = "auth";
          else phase = "lost";
        } else if (phase === "auth") {
          if (pending.length < 16) break;
          take(16);
          phase = "init";
        } else if (phase === "init") {
          if (pending.length < 1) break;
          take(1);
          phase = "messages";
        } else if (phase === "messages") {
          if (pending.length < 1) break;
          const kind = MESSAGES[pending[0]!];
          const size = kind?.size(pending);
          if (!kind || Number.isNaN(size)) phase = "lost";
          else if (size === null || size === undefined || pending.length < size) break;
          else {
            input ||= kind.input;
            take(size);
          }
        } else break;
      }
      if (phase === "lost") pending = new Uint8Array(0);
      return input;
    },
  };
}

/** At most one report of operator input every INPUT_REPORT_INTERVAL_MS per agent (SBX-030). */
export const INPUT_REPORT_INTERVAL_MS = 30_000;

/**
 * Throttles input reports per agent for one isolate.
 *
 * @example const t = new InputThrottle(); t.due("a", 0) // true; t.due("a", 10_000) // false; t.due("a", 30_000) // true
 */
export class InputThrottle {
  private readonly last = new BoundedMap<string, number>(10_000);

  due(agentId: string, now: number): boolean {
    const previous = this.last.get(agentId);
    if (previous !== undefined && now - previous < INPUT_REPORT_INTERVAL_MS) return false;
    this.last.set(agentId, now);
    return true;
  }
}
