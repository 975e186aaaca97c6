import { describe, expect, it } from "vitest";
import { FLUSH, PktError, pkt, readCommandSection, ZERO_ID } from "./pkt-line";

const A = "a".repeat(40);
const B = "b".repeat(40);

function streamOf(...parts: Array<string | Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === "string" ? encoder.encode(part) : part);
      controller.close();
    },
  }).getReader();
}

const read = (...parts: Array<string | Uint8Array>) => readCommandSection(streamOf(...parts));

describe("the receive-pack command list", () => {
  it("TASK-017: reads commands and capabilities, keeps the raw bytes and leaves the pack in the stream", async () => {
    const first = pkt(`${ZERO_ID} ${A} refs/heads/factory/task/X-1\0report-status side-band-64k agent=git/2.39\n`);
    const second = pkt(`${A} ${B} refs/heads/factory/wip/X-1\n`);
    // Split anywhere, the pkt-lines' own lengths included.
    const all = new Uint8Array([...first, ...second, ...FLUSH, ...new TextEncoder().encode("PACK....")]);
    const pieces = [all.subarray(0, 2), all.subarray(2, 50), all.subarray(50)];
    const section = await read(...pieces);
    expect(section.commands).toEqual([
      { old: ZERO_ID, new: A, ref: "refs/heads/factory/task/X-1" },
      { old: A, new: B, ref: "refs/heads/factory/wip/X-1" },
    ]);
    expect(section.capabilities).toEqual(["report-status", "side-band-64k", "agent=git/2.39"]);
    expect(new TextDecoder().decode(section.rest)).toBe("PACK....");
    expect(Buffer.concat(section.raw)).toEqual(Buffer.from(all.subarray(0, all.length - 8)));
  });

  it("TASK-017: shallow lines and push options are read past; an empty list (git's probe) is a flush alone", async () => {
    const section = await read(pkt(`shallow ${B}\n`), pkt(`${A} ${B} refs/heads/x\0report-status push-options\n`), FLUSH, pkt("ci.skip\n"), "0000PACK");
    expect(section.commands).toHaveLength(1);
    expect(new TextDecoder().decode(section.rest)).toBe("PACK");
    expect((await read("0000")).commands).toEqual([]);
  });

  it("TASK-017: hostile command lists are PktErrors: truncated, huge or bad lengths, no flush, malformed commands, too large", async () => {
    const cases: Array<[string, Array<string | Uint8Array>]> = [
      ["empty", []],
      ["a truncated length", ["00"]],
      ["a truncated line", [`0040${A}`]],
      ["bad hex", ["zzzz"]],
      ["upper-case hex is not git's", ["00A0"]],
      ["a length under four", ["0002"]],
      ["a huge length", ["ffff"]],
      ["no flush", [pkt(`${A} ${B} refs/heads/x\0report-status\n`)]],
      ["a malformed command", [pkt("hello\n"), FLUSH]],
      ["a short id", [pkt(`abc ${B} refs/heads/x\n`), FLUSH]],
      ["a ref with a space", [pkt(`${A} ${B} refs/heads/x y\n`), FLUSH]],
      ["capabilities after the first command", [pkt(`${A} ${B} refs/heads/x\n`), pkt(`${A} ${B} refs/heads/y\0report-status\n`), FLUSH]],
      ["a signed push", [pkt("push-cert\0report-status\n"), FLUSH]],
      ["not UTF-8", [pkt(new Uint8Array([0xff, 0xfe])), FLUSH]],
      ["too large", [...Array.from({ length: 1000 }, () => pkt(`${A} ${B} refs/heads/x\n`)), FLUSH]],
    ];
    for (const [name, parts] of cases) {
      const error = await read(...parts).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(PktError);
    }
  });
});
