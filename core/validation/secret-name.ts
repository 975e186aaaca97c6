/**
 * Which environment variable names a secret may not take (OP-SEC-3). A secret is injected
 * into the box's environment under its name (SEC-005), so a name the box, a shell, a loader
 * or an interpreter reads would let a tenant reconfigure something other than its own code:
 * the guest (GUEST_*), the dynamic loader (LD_*), bash at start (BASH_ENV, ENV), Node or
 * Python (NODE_OPTIONS, PYTHON*), or a variable the platform sets itself (HOME, GUILD_RUN_ID, GUILDS_*).
 */

/** Exact names: the platform's own variables, the shell's, and what a loader or runtime reads at start. */
export const RESERVED_SECRET_NAMES: ReadonlySet<string> = new Set([
  // Set by the platform or the login shell in every box.
  "HOME",
  "PATH",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  "OLDPWD",
  "HOSTNAME",
  "TMPDIR",
  "DISPLAY",
  "GUILD_RUN_ID",
  "GUILD_AGENT_ID",
  // Read by bash (and sh) at start or on every command.
  "ENV",
  "BASH_ENV",
  "BASHOPTS",
  "SHELLOPTS",
  "IFS",
  "PS4",
  "PROMPT_COMMAND",
  "CDPATH",
  "GLOBIGNORE",
  // Node: code or trust loaded at start.
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "NODE_TLS_REJECT_UNAUTHORIZED",
  "NODE_REPL_EXTERNAL_MODULE",
  "NODE_ICU_DATA",
  // TLS trust of curl, OpenSSL and Python's requests.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CURL_CA_BUNDLE",
  "REQUESTS_CA_BUNDLE",
  // glibc's loader-adjacent switches.
  "GCONV_PATH",
  "LOCPATH",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
]);

/** Prefixes: the guest's settings, the platform's and the box's helpers' variables, the loader, Python and git. */
export const RESERVED_SECRET_PREFIXES: readonly string[] = ["GUEST_", "GUILDS_", "SANDBOX_", "LD_", "PYTHON", "GIT_", "MALLOC_"];

/**
 * Why a secret may not take this name, or null when it may.
 *
 * @example reservedSecretName("GUEST_HOME") // "is reserved: names starting with GUEST_ configure the box"
 * @example reservedSecretName("SHOP_API_KEY") // null
 */
export function reservedSecretName(name: string): string | null {
  if (RESERVED_SECRET_NAMES.has(name)) return "is reserved: the box, its shell or a runtime reads it";
  const prefix = RESERVED_SECRET_PREFIXES.find((p) => name.startsWith(p));
  return prefix ? `is reserved: names starting with ${prefix} configure the box` : null;
}
