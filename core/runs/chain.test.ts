import { describe, expect, it } from "vitest";
import {
  chainFull,
  chainIndex,
  continuationMessage,
  HANDOFF_TOOL_RESULT,
  handoffDue,
  handoffRequest,
  keptMetadata,
  MAX_CHAIN_RUNS,
  NO_HANDOFF_NOTE,
  nextLink,
} from "./chain";

describe("run chains", () => {
  it("CHAIN-001 / GEN-023: only a coding run hands off", () => {
    expect(handoffDue({ coding: false, tokens: 99_000, maxInputTokens: 100_000 })).toBe(false);
    expect(handoffDue({ coding: true, tokens: 99_000, maxInputTokens: 100_000 })).toBe(true);
  });

  it("CHAIN-002: the hand-off point is a count at or above 70% of max_input_tokens", () => {
    expect(handoffDue({ coding: true, tokens: 699, maxInputTokens: 1000 })).toBe(false);
    expect(handoffDue({ coding: true, tokens: 700, maxInputTokens: 1000 })).toBe(true);
    expect(handoffDue({ coding: true, tokens: 1500, maxInputTokens: 1000 })).toBe(true);
  });

  it("CHAIN-002 / OP-CHAIN-1: the request asks for text only under the five headings, fixed per policy version", () => {
    const text = handoffRequest(1);
    for (const heading of ["## Goal", "## Done", "## Decided", "## Remaining", "## Files"]) expect(text).toContain(heading);
    expect(text).toContain("path:line");
    expect(text).toMatch(/text only/i);
    expect(handoffRequest(99)).toBe(text);
  });

  it("CHAIN-004: the result of a tool call in the hand-off reply", () => {
    expect(HANDOFF_TOOL_RESULT).toBe("ERROR: a hand-off was requested; reply with text only");
  });

  it("CHAIN-006 / CHAIN-007: the continuation message carries the hand-off, or null and a note", () => {
    const message = continuationMessage("r1", "## Goal\nship it");
    expect(message.startsWith("Continuation: ")).toBe(true);
    expect(JSON.parse(message.slice("Continuation: ".length))).toEqual({ previous_run_id: "r1", handoff: "## Goal\nship it" });
    for (const empty of [null, "", "  \n"]) {
      expect(JSON.parse(continuationMessage("r1", empty).slice("Continuation: ".length))).toEqual({
        previous_run_id: "r1",
        handoff: null,
        note: NO_HANDOFF_NOTE,
      });
    }
    expect(NO_HANDOFF_NOTE).toMatch(/Memory, notes, and the working tree/);
  });

  it("CHAIN-009: the chain link names the root, the index from 2 and the previous run", () => {
    const second = nextLink("r1", {});
    expect(second).toEqual({ root_run_id: "r1", index: 2, previous_run_id: "r1" });
    expect(nextLink("r2", { chain: second })).toEqual({ root_run_id: "r1", index: 3, previous_run_id: "r2" });
    expect(chainIndex({})).toBe(1);
  });

  it("CHAIN-017: the fifth run is the last one", () => {
    expect(MAX_CHAIN_RUNS).toBe(5);
    expect(chainFull({ chain: { root_run_id: "r", index: 4, previous_run_id: "p" } })).toBe(false);
    expect(chainFull({ chain: { root_run_id: "r", index: 5, previous_run_id: "p" } })).toBe(true);
  });

  it("CHAIN-013 / CHAIN-014: a continuation keeps the schedule's hash and the delivery's range, nothing else", () => {
    const metadata = {
      instruction_hash: "h",
      group_chat_through_seq: 9,
      group_chat_after_seq: 3,
      group_depth: 1,
      group_chat_history: { seqs: [] },
      resumed_at: "x",
    };
    expect(keptMetadata("schedule", metadata)).toEqual({ instruction_hash: "h" });
    expect(keptMetadata("group", metadata)).toEqual({ group_chat_through_seq: 9, group_chat_after_seq: 3, group_depth: 1, group_chat_history: { seqs: [] } });
    expect(keptMetadata("direct", metadata)).toEqual({});
  });
});
