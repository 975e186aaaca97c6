import type { WebSocketConstructor, WebSocketLike } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { coalescingWebSocket } from "./client";

/** A stand-in socket that records what it was asked to send and when it closed. */
class RecordingSocket implements WebSocketLike {
  static log: Array<number[] | string> = [];
  readonly readyState = 1;
  binaryType = "arraybuffer";
  constructor(readonly url: string) {}
  send(data: unknown): void {
    RecordingSocket.log.push(typeof data === "string" ? data : [...(data as Uint8Array)]);
  }
  close(): void {
    RecordingSocket.log.push("closed");
  }
  addEventListener(): void {}
}

const Socket = coalescingWebSocket(RecordingSocket as unknown as WebSocketConstructor);
const turnEnd = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("the database driver's writes", () => {
  it("leave as one message at the end of the turn that wrote them, not on a timer", async () => {
    RecordingSocket.log = [];
    const ws = new Socket("ws://db");
    ws.send(new Uint8Array([1, 2]));
    ws.send(new Uint8Array([3]).subarray(0));
    ws.send(new Uint8Array([9, 4, 5]).subarray(1));
    expect(RecordingSocket.log).toEqual([]);
    await turnEnd();
    expect(RecordingSocket.log).toEqual([[1, 2, 3, 4, 5]]);
    ws.send(new Uint8Array([6]));
    await turnEnd();
    expect(RecordingSocket.log).toEqual([[1, 2, 3, 4, 5], [6]]);
  });

  it("keep their order around text and a close", async () => {
    RecordingSocket.log = [];
    const ws = new Socket("ws://db");
    ws.send(new Uint8Array([1]));
    ws.send("text");
    ws.send(new Uint8Array([2]));
    ws.close();
    await turnEnd();
    expect(RecordingSocket.log).toEqual([[1], "text", [2], "closed"]);
  });
});
