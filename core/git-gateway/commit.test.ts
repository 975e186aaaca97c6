import { describe, expect, it } from "vitest";
import { commitParents } from "./commit";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const TREE = `tree ${"4".repeat(40)}`;
const bytes = (text: string) => new TextEncoder().encode(text);
const who = "author A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000";

describe("a commit's parents, as git counts them", () => {
  it("TASK-017: only the parent lines right after the tree are parents; one after the committer is an unknown header", () => {
    expect(commitParents(bytes(`${TREE}\nparent ${A}\nparent ${B}\n${who}\n\nmerge\n`))).toEqual([A, B]);
    expect(commitParents(bytes(`${TREE}\nparent ${A}\n${who}\nparent ${B}\n\nmsg\n`))).toEqual([A]);
    expect(commitParents(bytes(`${TREE}\n${who}\nparent ${B}\n\nmsg\n`))).toEqual([]);
    // A line between two parent lines ends them, as in git's parse_commit_buffer.
    expect(commitParents(bytes(`${TREE}\nparent ${A}\nencoding latin1\nparent ${C}\n${who}\n\nmsg\n`))).toEqual([A]);
  });

  it("TASK-017: a body that does not open with its tree has no parents; lines in the message never count", () => {
    expect(commitParents(bytes(`parent ${A}\n${TREE}\n${who}\n\nmsg\n`))).toEqual([]);
    expect(commitParents(bytes(`${who}\nparent ${A}\n\nmsg\n`))).toEqual([]);
    expect(commitParents(bytes(`${TREE}\n${who}\n\nparent ${A}\n`))).toEqual([]);
    // Not a parent line: too long, upper case, a short id.
    expect(commitParents(bytes(`${TREE}\nparent ${A}0\n${who}\n\nmsg\n`))).toEqual([]);
    expect(commitParents(bytes(`${TREE}\nparent ${A.toUpperCase()}\n${who}\n\nmsg\n`))).toEqual([]);
    expect(commitParents(bytes(`${TREE}\nparent ${A.slice(1)}\n${who}\n\nmsg\n`))).toEqual([]);
  });
});
