import type { ComponentChildren } from "preact";
import { navigate } from "../lib/router";

/** An ordinary anchor (keyboard, middle-click, copy link) that navigates in the app. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: "page" | undefined }) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} onClick={onClick} aria-current={props["aria-current"]}>
      {props.children}
    </a>
  );
}
