/**
 * Who may read platform-wide figures (the global usage counter, UI-010): the organisations
 * named in the Worker setting PLATFORM_OPERATOR_ORGANISATIONS (comma- or space-separated ids).
 * Unset or empty, nobody may; the figures of every organisation stay with the platform's
 * own tools (decision 0021).
 */

/**
 * The organisation ids the setting names, lower-cased, blanks dropped.
 *
 * @example platformOperators(" A1, b2 ,, ") // Set { "a1", "b2" }
 */
export function platformOperators(setting: string | undefined): Set<string> {
  return new Set(
    (setting ?? "")
      .split(/[\s,]+/)
      .map((id) => id.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Whether the organisation is one of the platform's operators.
 *
 * @example isPlatformOperator("org-1,org-2", "org-2") // true
 */
export function isPlatformOperator(setting: string | undefined, organisationId: string): boolean {
  return platformOperators(setting).has(organisationId.toLowerCase());
}
