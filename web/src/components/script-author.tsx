import type { ScriptAuthor as Author } from "../lib/api";
import { authorLabel } from "../lib/scripts";
import { Link } from "./link";

/** Who wrote a script's version (UI-018): the run, a link that opens it at its step, or the person. */
export function ScriptAuthor(props: { author: Author }) {
  const { text, href } = authorLabel(props.author);
  return (
    <span class="script-author" data-author-kind={props.author.kind}>
      by {href ? <Link href={href}>{text}</Link> : <span>{text}</span>}
    </span>
  );
}
