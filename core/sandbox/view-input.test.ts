import { describe, expect, it } from "vitest";
import { InputThrottle, rfbInput, terminalInput } from "./view-input";

const bytes = (...values: number[]) => new Uint8Array(values);
const HANDSHAKE = new Uint8Array([...new TextEncoder().encode("RFB 003.008\n"), 1, 1]);
const UPDATE_REQUEST = bytes(3, 1, 0, 0, 0, 0, 5, 0, 2, 208);
const KEY = bytes(4, 1, 0, 0, 0, 0, 0, 0x61);
const POINTER = bytes(5, 0, 0, 10, 0, 20);

describe("operator input on a proxied view (SBX-030, UI-015)", () => {
  it("SBX-030: noVNC's own frame requests and encodings are not input; keys, pointer and clipboard are", () => {
    const d = rfbInput();
    expect(d.isInput(HANDSHAKE)).toBe(false);
    expect(d.isInput(bytes(2, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0x21))).toBe(false);
    expect(d.isInput(UPDATE_REQUEST)).toBe(false);
    expect(d.isInput(KEY)).toBe(true);
    expect(d.isInput(POINTER)).toBe(true);
    expect(d.isInput(bytes(6, 0, 0, 0, 0, 0, 0, 2, 0x68, 0x69))).toBe(true);
    expect(d.isInput(bytes(255, 0, 0, 1, 0, 0, 0, 0x61, 0, 0, 0, 0x1e))).toBe(true);
  });

  it("SBX-030: messages split and joined across WebSocket frames are read as one stream", () => {
    const d = rfbInput();
    const stream = new Uint8Array([...HANDSHAKE, ...UPDATE_REQUEST, ...KEY]);
    expect(d.isInput(stream.subarray(0, 5))).toBe(false);
    expect(d.isInput(stream.subarray(5, 20))).toBe(false);
    // The key event completes only with the last byte.
    expect(d.isInput(stream.subarray(20, stream.length - 1))).toBe(false);
    expect(d.isInput(stream.subarray(stream.length - 1))).toBe(true);
    expect(d.isInput(new Uint8Array([...UPDATE_REQUEST, ...UPDATE_REQUEST]))).toBe(false);
  });

  it("SBX-030: VNC authentication's response is skipped; an unknown message stops counting rather than guessing", () => {
    const d = rfbInput();
    expect(d.isInput(new Uint8Array([...new TextEncoder().encode("RFB 003.008\n"), 2, ...new Uint8Array(16), 1]))).toBe(false);
    expect(d.isInput(KEY)).toBe(true);
    expect(d.isInput(bytes(99, 1, 2, 3))).toBe(false);
    expect(d.isInput(KEY)).toBe(false);
  });

  it("SBX-030: the terminal's typed text is input; its resizes are not (the box's JSON protocol and ttyd's)", () => {
    const d = terminalInput();
    expect(d.isInput('{"type":"resize","cols":100,"rows":30}')).toBe(false);
    expect(d.isInput(new TextEncoder().encode('{"type":"input","data":"ls -la\\r"}'))).toBe(true);
    expect(d.isInput("{not json")).toBe(false);
    expect(d.isInput('{"AuthToken":"","columns":80,"rows":24}')).toBe(false);
    expect(d.isInput(new TextEncoder().encode('1{"columns":100,"rows":30}'))).toBe(false);
    expect(d.isInput(new TextEncoder().encode("0ls -la\r"))).toBe(true);
  });

  it("UI-015: input is reported at most once every 30 s per agent", () => {
    const t = new InputThrottle();
    expect(t.due("a", 1_000)).toBe(true);
    expect(t.due("a", 20_000)).toBe(false);
    expect(t.due("b", 20_000)).toBe(true);
    expect(t.due("a", 31_000)).toBe(true);
    expect(t.due("a", 40_000)).toBe(false);
  });
});
