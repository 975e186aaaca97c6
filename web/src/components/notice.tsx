import type { ComponentChildren } from "preact";

/** A message box: errors are announced (role=alert), the rest politely. */
export function Notice(props: { kind: "error" | "info" | "warning" | "success"; children: ComponentChildren; testId?: string }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === "error" || props.kind === "warning" ? "alert" : "status"} data-testid={props.testId}>
      {props.children}
    </div>
  );
}
