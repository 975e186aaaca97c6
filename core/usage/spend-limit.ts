/**
 * An organisation's monthly spend limit is the lower of two figures: the limit it sets
 * itself (monthly_spend_limit_usd, through its own token) and the ceiling the platform's
 * operator sets (spend_ceiling_usd, only through the bootstrap script). Its token can
 * lower the limit under the ceiling, never raise it above.
 */

/**
 * The effective limit in USD, or null when neither figure is set. Numeric columns arrive
 * as strings.
 *
 * @example effectiveSpendLimit("500", "100") // 100
 * @example effectiveSpendLimit(null, "100") // 100
 * @example effectiveSpendLimit(null, null) // null
 */
export function effectiveSpendLimit(own: string | number | null | undefined, ceiling: string | number | null | undefined): number | null {
  const figures = [own, ceiling]
    .filter((v): v is string | number => v !== null && v !== undefined)
    .map(Number)
    .filter(Number.isFinite);
  return figures.length === 0 ? null : Math.min(...figures);
}

/**
 * A ceiling as the operator types it: a non-negative amount of USD, or `none` to lift it.
 * Throws with a message naming the bad value.
 *
 * @example parseSpendCeiling("100") // "100.000000"
 * @example parseSpendCeiling("none") // null
 */
export function parseSpendCeiling(text: string): string | null {
  if (/^(none|null|off)$/i.test(text.trim())) return null;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value >= 1e8) {
    throw new Error(`--spend-ceiling must be an amount of USD from 0 to 99999999, or none (got ${JSON.stringify(text)})`);
  }
  return value.toFixed(6);
}
