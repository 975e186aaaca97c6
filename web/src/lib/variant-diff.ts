/**
 * The difference between a recorded answer and a variant's: text word by word (whitespace
 * kept with the word before it, so joining the parts gives the text back) and tool calls by
 * position. Pure, for the console's side-by-side view.
 */

/** One run of the text diff: kept in both, only in the recorded answer, or only in the variant. */
export interface TextPart {
  kind: "same" | "removed" | "added";
  text: string;
}

/** Above this many tokens on either side the diff is not searched: one removed part and one added. */
const MAX_DIFF_TOKENS = 4_000;

/**
 * Words with the whitespace that follows each (and any leading whitespace on its own).
 *
 * @example tokens("a  b\nc") // ["a  ", "b\n", "c"]
 */
export function tokens(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [];
}

/**
 * A word-level diff of two texts by longest common subsequence. Adjacent parts of one kind
 * are merged; a removed part comes before the added part that replaces it.
 *
 * @example diffText("the cat sat", "the dog sat") // [{same,"the "},{removed,"cat "},{added,"dog "},{same,"sat"}]
 */
export function diffText(before: string, after: string): TextPart[] {
  const a = tokens(before);
  const b = tokens(after);
  const parts: TextPart[] = [];
  const push = (kind: TextPart["kind"], text: string) => {
    const last = parts.at(-1);
    if (last?.kind === kind) last.text += text;
    else if (text) parts.push({ kind, text });
  };
  if (a.length > MAX_DIFF_TOKENS || b.length > MAX_DIFF_TOKENS) {
    if (before === after) return before ? [{ kind: "same", text: before }] : [];
    push("removed", before);
    push("added", after);
    return parts;
  }
  // lengths[i][j]: the LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      push("same", a[i++]!);
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) push("removed", a[i++]!);
    else push("added", b[j++]!);
  }
  while (i < a.length) push("removed", a[i++]!);
  while (j < b.length) push("added", b[j++]!);
  return parts;
}

/** A tool call as compared: its name and arguments (ids differ from call to call). */
export interface ComparedCall {
  function: { name: string; arguments: string };
}

/** One position of the tool-call diff. */
export type CallChange =
  | { kind: "same"; name: string; arguments: string }
  | { kind: "removed"; name: string; arguments: string }
  | { kind: "added"; name: string; arguments: string }
  | { kind: "changed"; name: string; before: { name: string; arguments: string }; arguments: string };

/**
 * The tool calls compared position by position; arguments compared as JSON when both parse,
 * so key order and spacing do not count as a change.
 *
 * @example diffToolCalls([{ function: { name: "a", arguments: "{}" } }], []) // [{ kind: "removed", name: "a", arguments: "{}" }]
 */
export function diffToolCalls(before: readonly ComparedCall[], after: readonly ComparedCall[]): CallChange[] {
  const changes: CallChange[] = [];
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    const was = before[i]?.function;
    const now = after[i]?.function;
    if (was && !now) changes.push({ kind: "removed", name: was.name, arguments: was.arguments });
    else if (now && !was) changes.push({ kind: "added", name: now.name, arguments: now.arguments });
    else if (was && now) {
      const same = was.name === now.name && sameArguments(was.arguments, now.arguments);
      changes.push(
        same ? { kind: "same", name: now.name, arguments: now.arguments } : { kind: "changed", name: now.name, before: was, arguments: now.arguments },
      );
    }
  }
  return changes;
}

function sameArguments(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return sortedJson(JSON.parse(a)) === sortedJson(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * A parsed JSON value written back with its keys sorted, so key order does not count. It
 * reads what JSON.parse returns (no undefined, functions or symbols to drop), which is all
 * the comparison needs of the server's canonicalJson.
 *
 * @example sortedJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${sortedJson(obj[key])}`)
    .join(",")}}`;
}
