/**
 * git's credential helper (`git-credential-guilds get`): answers with the installation token of
 * the repository git asks about, or nothing, so git goes on anonymously. `store` and `erase`
 * are ignored: the platform alone writes the tokens file.
 */
import { tokenKeyOf } from "../../core/repos/git-token-key";
import { tokenFor } from "./tokens";

/** Parses git's `key=value` request lines. */
export function parseCredentialRequest(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/** The answer to a `get` request (empty when the repository has no token). */
export function credentialAnswer(request: Record<string, string>, lookup = tokenFor): string {
  const { protocol, host, path } = request;
  if ((protocol !== "https" && protocol !== "http") || !host || !path) return "";
  const entry = lookup(tokenKeyOf(host, path));
  return entry ? `username=x-access-token\npassword=${entry.token}\n` : "";
}

export async function credentialHelper(action: string | undefined): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  if (action !== "get") return 0;
  process.stdout.write(credentialAnswer(parseCredentialRequest(Buffer.concat(chunks).toString("utf8"))));
  return 0;
}
