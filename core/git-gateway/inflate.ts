/**
 * zlib inflate (RFC 1950/1951) that reports where its stream ends. A pack's objects are zlib
 * streams laid end to end with no lengths between them, so the reader must know the exact
 * byte a stream stops at; DecompressionStream does not say, and Node's zlib is not in
 * workerd. Table-driven Huffman decoding; the output is either kept (an exact buffer of the
 * declared size) or only counted through a 32 KiB window (objects the walk never reads).
 */

/** The input ended inside the stream: call again with more bytes. */
export class NeedInput extends Error {
  override readonly name = "NeedInput";
}

/** The stream is not valid deflate, or its size is not the one declared. */
export class InflateError extends Error {
  override readonly name = "InflateError";
}

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const WINDOW_MASK = 0x7fff;

/** Entries `symbol << 4 | length`, indexed by the next `bits` input bits (LSB first); 0 = no code. */
interface Table {
  entries: Int32Array;
  bits: number;
}

function buildTable(lengths: ArrayLike<number>, count: number): Table {
  const perLength = new Uint16Array(16);
  let max = 0;
  for (let i = 0; i < count; i++) {
    const l = lengths[i]!;
    if (l) {
      perLength[l]!++;
      if (l > max) max = l;
    }
  }
  let left = 1;
  for (let l = 1; l <= 15; l++) {
    left = (left << 1) - perLength[l]!;
    if (left < 0) throw new InflateError("over-subscribed Huffman code");
  }
  const next = new Uint16Array(16);
  for (let l = 1, code = 0; l <= 15; l++) {
    code = (code + perLength[l - 1]!) << 1;
    next[l] = code;
  }
  const size = 1 << max;
  const entries = new Int32Array(size);
  for (let symbol = 0; symbol < count; symbol++) {
    const l = lengths[symbol]!;
    if (!l) continue;
    const code = next[l]!++;
    let reversed = 0;
    for (let b = 0; b < l; b++) reversed |= ((code >> b) & 1) << (l - 1 - b);
    for (let j = reversed; j < size; j += 1 << l) entries[j] = (symbol << 4) | l;
  }
  return { entries, bits: max };
}

const FIXED_LIT = (() => {
  const lengths = new Uint8Array(288);
  lengths.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
  return buildTable(lengths, 288);
})();
const FIXED_DIST = buildTable(new Uint8Array(30).fill(5), 30);

class State {
  bitbuf = 0;
  bitcnt = 0;
  out: Uint8Array;
  written = 0;
  constructor(
    readonly input: Uint8Array,
    public pos: number,
    readonly end: number,
    readonly size: number,
    keep: boolean,
  ) {
    this.out = new Uint8Array(keep ? size : Math.min(size, WINDOW_MASK + 1));
    this.mask = keep ? 0x7fffffff : WINDOW_MASK;
  }
  readonly mask: number;

  bits(n: number): number {
    while (this.bitcnt < n) {
      if (this.pos >= this.end) throw new NeedInput("input ended inside the stream");
      this.bitbuf |= this.input[this.pos++]! << this.bitcnt;
      this.bitcnt += 8;
    }
    const value = this.bitbuf & ((1 << n) - 1);
    this.bitbuf >>>= n;
    this.bitcnt -= n;
    return value;
  }

  decode(table: Table): number {
    while (this.bitcnt < table.bits && this.pos < this.end) {
      this.bitbuf |= this.input[this.pos++]! << this.bitcnt;
      this.bitcnt += 8;
    }
    const entry = table.entries[this.bitbuf & ((1 << table.bits) - 1)]!;
    const length = entry & 15;
    if (length === 0 || length > this.bitcnt) {
      if (this.bitcnt < table.bits) throw new NeedInput("input ended inside a code");
      throw new InflateError("invalid Huffman code");
    }
    this.bitbuf >>>= length;
    this.bitcnt -= length;
    return entry >> 4;
  }

  /** Drops the bits of a partly read byte and gives back whole bytes read ahead. */
  alignToByte(): void {
    this.pos -= this.bitcnt >> 3;
    this.bitbuf = 0;
    this.bitcnt = 0;
  }

  put(byte: number): void {
    if (this.written >= this.size) throw new InflateError("stream longer than its declared size");
    this.out[this.written & this.mask] = byte;
    this.written++;
  }
}

function stored(s: State): void {
  s.alignToByte();
  if (s.pos + 4 > s.end) throw new NeedInput("input ended inside a stored block header");
  const { input } = s;
  const len = input[s.pos]! | (input[s.pos + 1]! << 8);
  const nlen = input[s.pos + 2]! | (input[s.pos + 3]! << 8);
  if ((len ^ 0xffff) !== nlen) throw new InflateError("stored block length check failed");
  if (s.pos + 4 + len > s.end) throw new NeedInput("input ended inside a stored block");
  s.pos += 4;
  for (let i = 0; i < len; i++) s.put(input[s.pos + i]!);
  s.pos += len;
}

function dynamicTables(s: State): [Table, Table] {
  const hlit = s.bits(5) + 257;
  const hdist = s.bits(5) + 1;
  const hclen = s.bits(4) + 4;
  if (hlit > 286 || hdist > 30) throw new InflateError("too many length or distance codes");
  const clen = new Uint8Array(19);
  for (let i = 0; i < hclen; i++) clen[CLEN_ORDER[i]!] = s.bits(3);
  const clenTable = buildTable(clen, 19);
  const lengths = new Uint8Array(hlit + hdist);
  for (let i = 0; i < hlit + hdist; ) {
    const symbol = s.decode(clenTable);
    if (symbol < 16) {
      lengths[i++] = symbol;
      continue;
    }
    let repeat: number;
    let value = 0;
    if (symbol === 16) {
      if (i === 0) throw new InflateError("repeat with no previous length");
      value = lengths[i - 1]!;
      repeat = 3 + s.bits(2);
    } else if (symbol === 17) repeat = 3 + s.bits(3);
    else repeat = 11 + s.bits(7);
    if (i + repeat > hlit + hdist) throw new InflateError("code lengths overflow");
    lengths.fill(value, i, i + repeat);
    i += repeat;
  }
  if (lengths[256] === 0) throw new InflateError("no end-of-block code");
  return [buildTable(lengths.subarray(0, hlit), hlit), buildTable(lengths.subarray(hlit), hdist)];
}

function codes(s: State, lit: Table, dist: Table): void {
  const { out, mask, size } = s;
  for (;;) {
    const symbol = s.decode(lit);
    if (symbol < 256) {
      s.put(symbol);
      continue;
    }
    if (symbol === 256) return;
    const li = symbol - 257;
    if (li >= 29) throw new InflateError("invalid length code");
    const length = LEN_BASE[li]! + s.bits(LEN_EXTRA[li]!);
    if (dist.bits === 0) throw new InflateError("distance with no distance codes");
    const di = s.decode(dist);
    if (di >= 30) throw new InflateError("invalid distance code");
    const distance = DIST_BASE[di]! + s.bits(DIST_EXTRA[di]!);
    if (distance > s.written) throw new InflateError("distance before the start of the output");
    if (s.written + length > size) throw new InflateError("stream longer than its declared size");
    let at = s.written;
    for (let k = 0; k < length; k++, at++) out[at & mask] = out[(at - distance) & mask]!;
    s.written = at;
  }
}

/**
 * Inflates the zlib stream at `input[start..end)` whose output is `size` bytes. Returns the
 * offset just past the stream (its Adler-32 included) and the output when `keep`; throws
 * NeedInput when `end` falls inside the stream, InflateError when it is not valid.
 */
export function inflateZlib(input: Uint8Array, start: number, end: number, size: number, keep: boolean): { end: number; data: Uint8Array | null } {
  if (start + 2 > end) throw new NeedInput("input ended inside the zlib header");
  const cmf = input[start]!;
  const flg = input[start + 1]!;
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0) throw new InflateError("not a zlib stream");
  if (flg & 0x20) throw new InflateError("zlib preset dictionary");
  const s = new State(input, start + 2, end, size, keep);
  let final = 0;
  while (!final) {
    final = s.bits(1);
    const type = s.bits(2);
    if (type === 0) stored(s);
    else if (type === 1) codes(s, FIXED_LIT, FIXED_DIST);
    else if (type === 2) codes(s, ...dynamicTables(s));
    else throw new InflateError("invalid block type");
  }
  s.alignToByte();
  if (s.written !== size) throw new InflateError("stream shorter than its declared size");
  if (s.pos + 4 > end) throw new NeedInput("input ended inside the Adler-32");
  return { end: s.pos + 4, data: keep ? s.out : null };
}
