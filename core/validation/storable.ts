/**
 * Text Postgres can store. A NUL character is refused by both `text` and `jsonb`
 * columns, and a lone UTF-16 surrogate by `jsonb`: either would fail the whole write.
 * Requests carrying them are refused with a 422 naming the field; text the platform did
 * not write itself (a model's reply, a tool's output) is kept with U+FFFD in their place.
 */

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/**
 * The text with every NUL and lone surrogate replaced by U+FFFD.
 *
 * @example storableText("a\u0000b") // "a\uFFFDb"
 */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, "\uFFFD") : text;
}

/**
 * A JSON value with every string (and key) made storable: for structures a provider
 * sent, such as reasoning blocks.
 *
 * @example storableValue([{ text: "a\u0000" }]) // [{ text: "a\uFFFD" }]
 */
export function storableValue<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableValue) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableValue(v)])) as T;
  }
  return value;
}

/**
 * The dotted path of the first string (or key) in a parsed JSON value that Postgres
 * could not store, or null when every one is fine.
 *
 * @example unstorableField({ content: "ok", tagged: ["a\u0000"] }) // "tagged.0"
 */
export function unstorableField(value: unknown, path = ""): string | null {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableField(value[i], path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (UNSTORABLE.test(key)) return field;
      const found = unstorableField(v, field);
      if (found !== null) return found;
    }
  }
  return null;
}
