/**
 * Secret redaction for tool results, logs and diffs (ERR-004, ERR-011, OP-ERR-5, OP-ERR-6).
 *
 * The run redaction set holds the agent's secret values, MCP token payloads and the GitHub
 * tokens minted for the generation; callers add them with `withSecrets` as they appear.
 * Every occurrence of a value (length ≥ 4) becomes `[REDACTED:<name>]`, and so do its
 * encoded forms: URL-encoded (encodeURIComponent) and base64, standard and url-safe, with
 * and without padding. Base64 is also matched inside a longer encoded string (as in
 * `Authorization: Basic base64(user:token)`) through its three byte alignments; there only
 * the characters that depend on the value alone are replaced.
 */
import { toBase64 } from "../bytes/base64";

/** One secret of the redaction set. `name` appears in the marker, `value` never leaves. */
export interface SecretValue {
  name: string;
  value: string;
}

/** Values shorter than this would shred ordinary text, so they are not redacted. */
export const MIN_SECRET_LENGTH = 4;
/** Shortest base64 fragment matched inside a longer encoded string: shorter ones collide. */
const MIN_FRAGMENT_LENGTH = 8;

/**
 * Replaces known secret values in text with `[REDACTED:<name>]`, longest value first.
 * One combined regex (escaped alternatives, longest first) scans the text once, so the
 * cost grows with the text, not with the number of secrets. An empty set is the identity.
 *
 * @example
 * const r = new Redactor([{ name: "GITHUB_TOKEN", value: "ghp_abc123" }]);
 * r.redact("token=ghp_abc123") // "token=[REDACTED:GITHUB_TOKEN]"
 */
export class Redactor {
  /** The redactor of the empty set: returns its input. */
  static readonly none = new Redactor([]);

  readonly #secrets: readonly SecretValue[];
  readonly #pattern: RegExp | null;
  readonly #names: ReadonlyMap<string, string>;
  /** The variants by their first character, for `redactChunk`'s hold-back search. */
  readonly #byFirst: ReadonlyMap<string, readonly string[]>;
  /** Length of the longest form redacted: the most a stream ever holds back. */
  readonly #longest: number;

  /** Each secret's encoded forms, so a larger set (`withSecrets`) does not encode them again. */
  readonly #forms: ReadonlyMap<SecretValue, readonly string[]>;

  constructor(secrets: readonly SecretValue[], known: ReadonlyMap<SecretValue, readonly string[]> = new Map()) {
    this.#secrets = secrets.filter((s) => typeof s.value === "string" && s.value.length >= MIN_SECRET_LENGTH);
    const forms = new Map<SecretValue, readonly string[]>();
    for (const secret of this.#secrets) forms.set(secret, known.get(secret) ?? variants(secret.value));
    this.#forms = forms;
    // Longest raw value first, so a secret containing another is named after itself,
    // and its variants claim their text before a shorter secret's variants do.
    const ordered = [...this.#secrets].sort((a, b) => b.value.length - a.value.length || cmp(a.name, b.name));
    const names = new Map<string, string>();
    for (const secret of ordered) {
      for (const variant of forms.get(secret)!) if (!names.has(variant)) names.set(variant, secret.name);
    }
    this.#names = names;
    const byFirst = new Map<string, string[]>();
    for (const variant of names.keys()) byFirst.set(variant[0]!, [...(byFirst.get(variant[0]!) ?? []), variant]);
    this.#byFirst = byFirst;
    this.#longest = Math.max(0, ...[...names.keys()].map((v) => v.length));
    const alternatives = [...names.keys()].sort((a, b) => b.length - a.length || cmp(a, b));
    this.#pattern = alternatives.length === 0 ? null : buildPattern(alternatives);
  }

  /** Number of secrets in the set (values shorter than 4 characters are not counted). */
  get size(): number {
    return this.#secrets.length;
  }

  /**
   * A redactor for this set plus `more`, e.g. the tokens minted during a generation.
   *
   * @example const run = agentRedactor.withSecrets([{ name: "github:acme", value: token }]);
   */
  withSecrets(more: readonly SecretValue[]): Redactor {
    return more.length === 0 ? this : new Redactor([...this.#secrets, ...more], this.#forms);
  }

  /** Text with every known value and encoded form replaced by its marker. */
  redact(text: string): string {
    if (this.#pattern === null || text.length === 0) return text;
    this.#pattern.lastIndex = 0;
    return text.replace(this.#pattern, (match) => `[REDACTED:${this.#names.get(match) ?? "secret"}]`);
  }

  /**
   * One step of redacting a stream (content deltas): `emit` is `text` redacted up to where a
   * value might still be starting, `held` the tail that might be the first part of one, to
   * prefix to the next chunk (a secret split across two deltas is then caught whole). Only a
   * tail that really is a prefix of a known form is held, so ordinary text flows at once.
   * The emitted parts of a stream, plus the last `held` redacted, equal `redact` of the whole.
   *
   * @example
   * const r = new Redactor([{ name: "K", value: "s3cr3t-value" }]);
   * r.redactChunk("key s3cr") // { emit: "key ", held: "s3cr" }
   * r.redactChunk("s3cr" + "3t-value!") // { emit: "[REDACTED:K]!", held: "" }
   */
  redactChunk(text: string): { emit: string; held: string } {
    if (this.#pattern === null) return { emit: text, held: "" };
    let hold = this.#holdFrom(text, 0);
    let out = "";
    let last = 0;
    const pattern = this.#pattern;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null && match.index < hold; match = pattern.exec(text)) {
      // A match starting before the hold is final: any longer form starting there would have
      // made its start the hold. One reaching past the hold moves it to after its end.
      out += `${text.slice(last, match.index)}[REDACTED:${this.#names.get(match[0]) ?? "secret"}]`;
      last = match.index + match[0].length;
      if (last > hold) hold = this.#holdFrom(text, last);
    }
    return { emit: out + text.slice(last, hold), held: text.slice(hold) };
  }

  /** The first index ≥ `from` where the rest of `text` is a proper prefix of a known form, else its length. */
  #holdFrom(text: string, from: number): number {
    for (let i = Math.max(from, text.length - this.#longest + 1); i < text.length; i++) {
      const candidates = this.#byFirst.get(text[i]!);
      if (!candidates) continue;
      const rest = text.length - i;
      for (const form of candidates) {
        if (form.length <= rest) continue;
        let k = 1;
        while (k < rest && form.charCodeAt(k) === text.charCodeAt(i + k)) k++;
        if (k === rest) return i;
      }
    }
    return text.length;
  }

  /**
   * A copy of a JSON-like value with every string (object keys included) redacted.
   * Numbers, booleans and null pass through; cycles become "[Circular]".
   *
   * @example r.redactDeep({ env: { TOKEN: "ghp_abc123" } }) // { env: { TOKEN: "[REDACTED:GITHUB_TOKEN]" } }
   */
  redactDeep<T>(value: T): T {
    if (this.#pattern === null) return value;
    return this.#walk(value, new WeakSet()) as T;
  }

  #walk(value: unknown, seen: WeakSet<object>): unknown {
    if (typeof value === "string") return this.redact(value);
    if (value === null || typeof value !== "object") return value;
    if (seen.has(value)) return "[Circular]";
    seen.add(value);
    try {
      if (Array.isArray(value)) return value.map((item) => this.#walk(item, seen));
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[this.redact(key)] = this.#walk(item, seen);
      return out;
    } finally {
      seen.delete(value);
    }
  }

  /** Never shows values: a redactor logged by mistake prints only the secret names. */
  toJSON(): { secrets: string[] } {
    return { secrets: this.#secrets.map((s) => s.name) };
  }
}

/** The strings to redact for one value: itself, URL-encoded, and the base64 forms. */
export function variants(value: string): string[] {
  const out = new Set<string>([value, encodeURIComponent(value)]);
  const bytes = new TextEncoder().encode(value);
  for (const encoded of [toBase64(bytes), base64url(bytes)]) {
    out.add(encoded);
    out.add(encoded.replace(/=+$/, ""));
  }
  for (const fragment of base64Fragments(bytes)) {
    out.add(fragment);
    out.add(toUrlAlphabet(fragment));
  }
  return [...out].filter((v) => v.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 characters that depend only on `bytes` when they sit at byte offset 0, 1 or
 * 2 of a longer encoded buffer. Leading characters shared with the preceding bytes and
 * trailing ones shared with the following bytes are dropped.
 */
function base64Fragments(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (const offset of [0, 1, 2]) {
    const shifted = new Uint8Array(offset + bytes.length);
    shifted.set(bytes, offset);
    const encoded = toBase64(shifted).replace(/=+$/, "");
    const head = [0, 2, 3][offset]!;
    const rest = shifted.length % 3;
    const tail = rest === 0 ? 0 : 1;
    const fragment = encoded.slice(head, encoded.length - tail);
    if (fragment.length >= MIN_FRAGMENT_LENGTH) out.push(fragment);
  }
  return out;
}

function buildPattern(alternatives: string[]): RegExp {
  try {
    return new RegExp(alternatives.map(escapeRegExp).join("|"), "g");
  } catch {
    // The engine's message quotes the pattern, that is, the secret values.
    throw new Error(`redaction: could not build the pattern for ${alternatives.length} secret variants`);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function base64url(bytes: Uint8Array): string {
  return toUrlAlphabet(toBase64(bytes));
}

function toUrlAlphabet(encoded: string): string {
  return encoded.replace(/\+/g, "-").replace(/\//g, "_");
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The platform's own secret values (the provider key, the database URL with its
 * password), redacted from every log line, error and tool result beside the agent's.
 *
 * @example platformRedactor(env).redact(`failed: ${env.MODEL_API_KEY}`) // "failed: [REDACTED:MODEL_API_KEY]"
 */
export function platformRedactor(env: {
  MODEL_API_KEY?: string;
  DATABASE_URL?: string;
  TYPESAFE_API_KEY?: string;
  GITHUB_APP_PRIVATE_KEY?: string;
  GITHUB_APP_CLIENT_SECRET?: string;
  TAVILY_API_KEY?: string;
  GITHUB_WEBHOOK_SECRET?: string;
}): Redactor {
  const values = PLATFORM_SECRETS.map((name) => env[name] ?? "").join("\0");
  if (platform?.values !== values) platform = { values, redactor: buildPlatformRedactor(env) };
  return platform.redactor;
}

const PLATFORM_SECRETS = [
  "GITHUB_APP_PRIVATE_KEY",
  "GITHUB_APP_CLIENT_SECRET",
  "MODEL_API_KEY",
  "TYPESAFE_API_KEY",
  "DATABASE_URL",
  "TAVILY_API_KEY",
  "GITHUB_WEBHOOK_SECRET",
] as const;

/**
 * The platform's redactor, kept per isolate: its values come from the environment, which an
 * isolate keeps, and encoding them (a private key's base64 at three alignments) was a part
 * of every generation's CPU. A change of a value builds it again.
 */
let platform: { values: string; redactor: Redactor } | undefined;

function buildPlatformRedactor(env: Parameters<typeof platformRedactor>[0]): Redactor {
  return new Redactor(PLATFORM_SECRETS.flatMap((name) => (env[name] ? [{ name, value: env[name] }] : [])));
}
