/**
 * The console's content security policy: its own scripts, styles and API only; no
 * inline script, no plugin, no framing (clickjacking), no foreign form target.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for the images the console fetches with its token and shows from memory.
  "img-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Headers every response carries, the console's assets and the API's answers alike.
 * One list: the Worker sets them on /api, the console build writes them to `_headers`.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  // For browsers that predate frame-ancestors.
  "X-Frame-Options": "DENY",
};

/**
 * The static-assets `_headers` file applying the headers to every path.
 *
 * @example headersFile() // "/*\n  Content-Security-Policy: default-src 'self'; …\n"
 */
export function headersFile(): string {
  return `/*\n${Object.entries(SECURITY_HEADERS)
    .map(([name, value]) => `  ${name}: ${value}`)
    .join("\n")}\n`;
}
