import type { Tiktoken } from "js-tiktoken/lite";
import type { TextCounter } from "./types";

/**
 * A token counter over js-tiktoken's own ranks with a faster merge. js-tiktoken 1.0.21
 * re-joins every adjacent pair on each merge step, which is quadratic with a large
 * constant per pre-token piece: one run of 8000 "x" (or "=" / "─" rules in CLI output)
 * takes ~10 s, far past a Worker's CPU budget. The merge below is the same algorithm
 * (lowest rank first, leftmost on ties) but looks up only the two pairs a merge changes,
 * so counts equal `encoder.encode(text, [], []).length` for pieces up to MAX_PIECE_BYTES.
 */

/**
 * Pieces longer than this are counted in windows of this size. Real tokens are far
 * shorter, so a cut costs at most about one token per window: harmless for a cap.
 */
export const MAX_PIECE_BYTES = 1024;

type Ranks = Map<string, number>;

function key(bytes: Uint8Array, start: number, end: number): string {
  let k = String(bytes[start]);
  for (let i = start + 1; i < end; i++) k += `,${bytes[i]}`;
  return k;
}

/** Number of tokens BPE leaves for bytes[start, end) (js-tiktoken's merge order). */
function mergeCount(bytes: Uint8Array, start: number, end: number, ranks: Ranks): number {
  const n = end - start;
  if (n <= 1) return n;
  if (ranks.has(key(bytes, start, end))) return 1;
  // bounds[i] is where part i begins; rank[i] is the rank of merging parts i and i+1.
  const bounds: number[] = [];
  for (let i = start; i <= end; i++) bounds.push(i);
  const rankAt = (i: number): number => (i + 2 < bounds.length ? (ranks.get(key(bytes, bounds[i]!, bounds[i + 2]!)) ?? Infinity) : Infinity);
  const rank: number[] = bounds.map((_, i) => rankAt(i));
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < rank.length - 2; i++) {
      if (rank[i]! < bestRank) {
        bestRank = rank[i]!;
        best = i;
      }
    }
    if (best < 0) break;
    bounds.splice(best + 1, 1);
    rank.splice(best + 1, 1);
    rank[best] = rankAt(best);
    if (best > 0) rank[best - 1] = rankAt(best - 1);
  }
  return bounds.length - 1;
}

/**
 * Builds the counter for an encoder and its pre-token pattern (`ranks.pat_str`). Falls back
 * to `encoder.encode` if the rank table is not where 1.0.21 keeps it (a later release).
 * @example const count = makeCounter(new Tiktoken(o200k), o200k.pat_str); count("hello world") // 2
 */
export function makeCounter(encoder: Tiktoken, patStr: string): TextCounter {
  const ranks = (encoder as unknown as { rankMap?: unknown }).rankMap;
  if (!(ranks instanceof Map)) return (text) => encoder.encode(text, [], []).length;
  const rankMap = ranks as Ranks;
  const pieces = new RegExp(patStr, "ug");
  const utf8 = new TextEncoder();
  // Most pieces are words seen before (a system prompt, tool schemas, English): their counts
  // are kept, as BPE tokenizers keep theirs, so a piece is merged once per isolate.
  const known = new Map<string, number>();
  const pieceCount = (piece: string): number => {
    const cached = known.get(piece);
    if (cached !== undefined) return cached;
    const bytes = utf8.encode(piece);
    let tokens = 0;
    for (let s = 0; s < bytes.length; s += MAX_PIECE_BYTES) {
      tokens += mergeCount(bytes, s, Math.min(bytes.length, s + MAX_PIECE_BYTES), rankMap);
    }
    if (piece.length <= KNOWN_PIECE_MAX_CHARS) {
      if (known.size >= KNOWN_PIECES) known.clear();
      known.set(piece, tokens);
    }
    return tokens;
  };
  // Special tokens are not allowed, so encode() treats their text as ordinary text: no split needed.
  return (text) => {
    let tokens = 0;
    for (const match of text.matchAll(pieces)) tokens += pieceCount(match[0]);
    return tokens;
  };
}

/** Pieces whose counts are kept, per counter; when full, the kept counts start over. */
const KNOWN_PIECES = 50_000;
/** Longer pieces (a run of "=" or a base64 blob) are rarely seen twice: not kept. */
const KNOWN_PIECE_MAX_CHARS = 64;
