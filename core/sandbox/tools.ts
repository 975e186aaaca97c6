/**
 * Which offered tools reach into the box: a run that offers one ensures the box at each
 * generation start; any other run never pays for a container start.
 */

/** @example usesSandbox("browser_click") // true */
export function usesSandbox(toolName: string): boolean {
  return toolName === "shell" || toolName.startsWith("browser_");
}

/** @example offersSandbox([{ function: { name: "shell" } }]) // true */
export function offersSandbox(tools: readonly { function: { name: string } }[]): boolean {
  return tools.some((t) => usesSandbox(t.function.name));
}
