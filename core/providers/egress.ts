/**
 * Where an agent's own model provider may live. A tenant names `model_base_url`; the
 * platform then connects there from inside its network, so an address that reaches the
 * platform's own machines (loopback, private ranges, link-local and cloud metadata
 * endpoints) is refused unless the operator allows it (ALLOW_PRIVATE_MODEL_URLS).
 *
 * The check reads the URL as WHATWG parsers do, so odd IPv4 spellings
 * (`http://2130706433/`, `http://0177.0.0.1/`, `http://0x7f.1/`) count as the address they
 * resolve to, and IPv6 forms that embed an IPv4 address (`[::ffff:127.0.0.1]`, NAT64,
 * 6to4) count as that IPv4 address.
 *
 * Limit: a public hostname whose DNS answer is a private address passes. A Worker cannot
 * resolve names before it connects, so that case rests on the runtime's own egress rules
 * (Cloudflare does not route Workers' subrequests to private networks).
 */

/** Kinds of address the operator can allow; `*` in the setting allows every kind. */
export type AddressKind = "loopback" | "private" | "link-local" | "metadata" | "unspecified" | "reserved";

/** What the operator allows, parsed from ALLOW_PRIVATE_MODEL_URLS. */
export type EgressAllowance = ReadonlySet<AddressKind>;

const ALL_KINDS: readonly AddressKind[] = ["loopback", "private", "link-local", "metadata", "unspecified", "reserved"];

/**
 * ALLOW_PRIVATE_MODEL_URLS: a comma list of `loopback`, `private`, `link-local`, or `*`
 * for every kind. Unknown words are ignored: a typo allows less, never more.
 *
 * @example allowanceFrom("loopback") // Set { "loopback" }
 */
export function allowanceFrom(setting: string | undefined): EgressAllowance {
  const words = (setting ?? "")
    .split(",")
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  if (words.includes("*")) return new Set(ALL_KINDS);
  return new Set(words.filter((w): w is AddressKind => w === "loopback" || w === "private" || w === "link-local"));
}

export type UrlVerdict = { ok: true } | { ok: false; kind: AddressKind | "scheme" | "credentials" | "invalid"; message: string };

/**
 * Whether a model base URL may be called, given what the operator allows.
 *
 * @example checkModelUrl("http://169.254.169.254/v1", new Set()) // { ok: false, kind: "metadata", … }
 * @example checkModelUrl("https://api.example.com/v1", new Set()) // { ok: true }
 */
export function checkModelUrl(raw: string, allow: EgressAllowance): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, kind: "invalid", message: "is not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, kind: "scheme", message: "must use http or https" };
  }
  if (url.username || url.password) {
    return { ok: false, kind: "credentials", message: "must not carry credentials; name the key in model_api_key_secret" };
  }
  const kind = addressKind(url.hostname);
  if (kind === null || allow.has(kind)) return { ok: true };
  return { ok: false, kind, message: `points at a ${kind} address (${url.hostname}), which this platform does not call` };
}

/**
 * The kind of a URL's hostname (as `URL.hostname` gives it), or null for a public one.
 *
 * @example addressKind("[::ffff:7f00:1]") // "loopback"
 */
export function addressKind(hostname: string): AddressKind | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) return ipv6Kind(host.slice(1, -1));
  const v4 = parseIpv4(host);
  if (v4 !== null) return ipv4Kind(v4);
  return nameKind(host);
}

/** Names that reach the platform's own machines whatever DNS says. */
function nameKind(host: string): AddressKind | null {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host === "metadata" || host === "metadata.google.internal") return "metadata";
  // Internal zones and bare intranet names: resolved by a private resolver, if at all.
  if (!host.includes(".") || /\.(internal|local|lan|intranet|corp|home\.arpa)$/.test(host)) return "private";
  return null;
}

function parseIpv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

const inV4 = (ip: number, base: string, bits: number) => {
  const start = parseIpv4(base)!;
  const size = 2 ** (32 - bits);
  return ip >= start && ip < start + size;
};

function ipv4Kind(ip: number): AddressKind | null {
  if (inV4(ip, "169.254.169.254", 32) || inV4(ip, "100.100.100.200", 32)) return "metadata";
  if (inV4(ip, "127.0.0.0", 8)) return "loopback";
  if (inV4(ip, "0.0.0.0", 8)) return "unspecified";
  if (inV4(ip, "10.0.0.0", 8) || inV4(ip, "172.16.0.0", 12) || inV4(ip, "192.168.0.0", 16) || inV4(ip, "100.64.0.0", 10)) return "private";
  if (inV4(ip, "169.254.0.0", 16)) return "link-local";
  if (inV4(ip, "224.0.0.0", 4) || inV4(ip, "240.0.0.0", 4) || inV4(ip, "192.0.0.0", 24) || inV4(ip, "198.18.0.0", 15)) return "reserved";
  return null;
}

/** Eight 16-bit groups of an IPv6 address as URL.hostname writes it (compressed, maybe a dotted tail). */
function parseIpv6(text: string): number[] | null {
  let body = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIpv4(dotted[1]!);
    if (v4 === null) return null;
    body = `${body.slice(0, -dotted[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail, ...rest] = body.split("::");
  if (rest.length > 0) return null;
  const groups = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const all = [...left, ...new Array<number>(Math.max(fill, 0)).fill(0), ...right];
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

function ipv6Kind(text: string): AddressKind | null {
  const g = parseIpv6(text);
  if (!g) return "reserved";
  const v4 = (hi: number, lo: number) => ipv4Kind(hi * 65536 + lo);
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "unspecified";
  if (zeros(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
  // (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the embedded IPv4 address.
  if (zeros(5) && g[5] === 0xffff) return v4(g[6]!, g[7]!);
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!);
  if (zeros(6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6]!, g[7]!);
  // Local-use NAT64 (64:ff9b:1::/48) is translated by the local network itself.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return v4(g[6]!, g[7]!) ?? "private";
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4 embeds the IPv4 address after the prefix
  if (g[0] === 0x2001 && g[1] === 0) return "reserved"; // Teredo tunnels to an address it hides
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return "metadata";
  if ((g[0]! & 0xfe00) === 0xfc00) return "private";
  if ((g[0]! & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated but still routed inside sites
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xff00) === 0xff00) return "reserved";
  return null;
}
