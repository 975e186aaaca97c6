/**
 * Whose box is calling: the check behind every door a box reaches through the Container's
 * outbound handler (the git and model gateways, the home saved on exit). The runtime names
 * the calling Container object; a box started cold is named by its holder (the agent's id,
 * or `task:<id>`), and a box taken from the warm pool keeps the pool's name and was claimed
 * for its holder (sandbox-container.ts, `claim`). A warm box nobody claimed holds nobody.
 */
import type { OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../../bindings/env";

/** What the doors ask a box (sandbox-container.ts's `holder`), named here so this file needs not import the class. */
type HeldBox = { holder(): Promise<string | null> };

/** The namespace of the calling box's class, or null for a class that is no box of ours. */
function namespaceOf(env: Env, ctx: OutboundHandlerContext): DurableObjectNamespace | null {
  if (ctx.className === "LiteSandbox") return env.SANDBOX_LITE;
  if (ctx.className === "StandardSandbox") return env.SANDBOX_STANDARD;
  return null;
}

/**
 * Whether the calling box is held by `holder`, optionally only in one class.
 *
 * @example await boxHeldBy(env, ctx, `task:${taskId}`, "StandardSandbox") // false for any other box
 */
export async function boxHeldBy(env: Env, ctx: OutboundHandlerContext, holder: string, className?: string): Promise<boolean> {
  if (className && ctx.className !== className) return false;
  const namespace = namespaceOf(env, ctx);
  if (!namespace) return false;
  if (namespace.idFromName(holder).toString() === ctx.containerId) return true;
  // Only a warm box's name differs from its holder's; one claimed by someone else, or by nobody, is refused.
  // A box that cannot say (an id of another class, an object that fails) is refused: the doors open only on a yes.
  try {
    const box = namespace.get(namespace.idFromString(ctx.containerId)) as unknown as HeldBox;
    return (await box.holder()) === holder;
  } catch {
    return false;
  }
}
