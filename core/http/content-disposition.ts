/**
 * A file name safe to store and to echo in a header: the last path segment, without
 * control characters, at most 255 characters.
 *
 * @example uploadFilename("C:\\fakepath\\cat.png") // "cat.png"
 */
export function uploadFilename(name: string, fallback: string): string {
  const base = name.split(/[\\/]/).at(-1) ?? "";
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  return clean || fallback;
}

/**
 * A Content-Disposition value (RFC 6266) naming the file: an ASCII fallback for old
 * clients and the exact UTF-8 name in `filename*`.
 *
 * @example contentDisposition("inline", "plan ü.png") // `inline; filename="plan _.png"; filename*=UTF-8''plan%20%C3%BC.png`
 */
export function contentDisposition(kind: "inline" | "attachment", filename: string): string {
  const name = uploadFilename(filename, "file");
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
