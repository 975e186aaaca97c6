import { authorLabel, type ScriptAuthorWire } from "../lib/scripts";
import { Link } from "./link";

/** Who wrote a script's version (UI-018): the run, a link that opens it at its step, or the person. */
export function ScriptAuthor(props: { author: ScriptAuthorWire }) {
  const { text, href } = authorLabel(props.author);
  return (
    <span class="script-author" data-author-kind={props.author.kind}>
      by {href ? <Link href={href}>{text}</Link> : <span>{text}</span>}
    </span>
  );
}
