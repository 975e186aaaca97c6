/**
 * bench/redaction-stream: what redacting the model's deltas costs a generation step.
 *
 * A reply of REPLY characters streamed in 12-character deltas (the mock model's chunking)
 * through a RedactingStream whose set holds SECRETS values of 40 characters and a PEM key
 * of about 1.7 KB (the platform's GitHub App key is in every set), with every tenth delta
 * starting like a secret (the worst case for the hold-back search). Prints the time per
 * delta and per reply, beside publishing the deltas unredacted.
 *
 *   npx tsx bench/redaction-stream.ts [--reply 20000] [--secrets 20] [--rounds 50]
 */
import { parseArgs } from "node:util";
import { Redactor } from "../core/output/redaction";
import { RedactingStream } from "../core/output/redaction-stream";
import { quantile } from "./bench-stack";

const { values } = parseArgs({
  options: { reply: { type: "string", default: "20000" }, secrets: { type: "string", default: "20" }, rounds: { type: "string", default: "50" } },
});
const REPLY = Number(values.reply);
const SECRETS = Number(values.secrets);
const ROUNDS = Number(values.rounds);

const random = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
const pem = `-----BEGIN PRIVATE KEY-----\n${Array.from({ length: 26 }, () => random(64)).join("\n")}\n-----END PRIVATE KEY-----\n`;
const secrets = [{ name: "GITHUB_APP_PRIVATE_KEY", value: pem }, ...Array.from({ length: SECRETS }, (_, i) => ({ name: `S${i}`, value: random(40) }))];
const redactor = new Redactor(secrets);
const words = ["the ", "model ", "answers ", "with ", "ordinary ", "text, ", "code ", "and ", "numbers ", "42 "];
let text = "";
for (let i = 0; text.length < REPLY; i++) text += SECRETS > 0 && i % 10 === 0 ? `${secrets[1 + (i % SECRETS)]!.value.slice(0, 6)} ` : words[i % words.length];
const deltas: string[] = [];
for (let i = 0; i < text.length; i += 12) deltas.push(text.slice(i, i + 12));

function round(redacted: boolean): number {
  const started = performance.now();
  const stream = new RedactingStream(() => redactor);
  let out = 0;
  for (const delta of deltas) out += (redacted ? stream.push(delta) : delta).length;
  if (redacted) out += stream.flush().length;
  if (out === 0) throw new Error("nothing published");
  return performance.now() - started;
}

for (let i = 0; i < 5; i++) round(true);
const plain = Array.from({ length: ROUNDS }, () => round(false));
const redacted = Array.from({ length: ROUNDS }, () => round(true));
for (const xs of [plain, redacted]) xs.sort((a, b) => a - b);
const median = (xs: number[]) => quantile(xs, 0.5);
console.log(
  `redaction-stream: ${REPLY} characters in ${deltas.length} deltas, ${secrets.length} secrets (one a ${pem.length}-character PEM), ${ROUNDS} rounds`,
);
console.log(
  `  redacted: reply median ${median(redacted).toFixed(2)} ms, p90 ${quantile(redacted, 0.9).toFixed(2)} ms, per delta ${((median(redacted) * 1000) / deltas.length).toFixed(1)} µs`,
);
console.log(`  plain:    reply median ${median(plain).toFixed(3)} ms`);
