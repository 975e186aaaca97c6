/**
 * What a run keeps of a provider's error answer. The body comes from a server the tenant
 * may run, so it is never stored as sent: one line, known secrets and key-shaped tokens
 * masked, at most MAX_PROVIDER_MESSAGE characters. The HTTP status is kept beside it.
 */
import type { Redactor } from "../output/redaction";

export const MAX_PROVIDER_MESSAGE = 200;

/** Shapes of API keys and bearer credentials, masked even when not in the redaction set. */
const KEY_SHAPES = [/\bBearer\s+[^\s"',;]+/gi, /\b(?:sk|pk|rk|gsk)[-_][A-Za-z0-9_-]{12,}/g];

/**
 * The run error's message for a provider failure.
 *
 * @example providerErrorMessage("model provider answered 401: bad key sk-live-0123456789abcdef\n<html>…", Redactor.none)
 * // "model provider answered 401: bad key [REDACTED] <html>…"
 */
export function providerErrorMessage(raw: string, redactor: Redactor): string {
  // Redact before cutting, so no half of a secret survives the cut.
  let text = redactor.redact(raw);
  for (const shape of KEY_SHAPES) text = text.replace(shape, (match) => (/^bearer/i.test(match) ? "Bearer [REDACTED]" : "[REDACTED]"));
  text = text.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
  return text.length <= MAX_PROVIDER_MESSAGE ? text : `${text.slice(0, MAX_PROVIDER_MESSAGE - 1)}…`;
}
