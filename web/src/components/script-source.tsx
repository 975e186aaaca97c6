import { useEffect, useMemo, useState } from "preact/hooks";
import { sourceLines } from "../lib/scripts";

type Highlighter = (source: string) => string[];

/**
 * The highlighter is fetched with the first card rather than with the console: it shares
 * highlight.js's core with the chat's Markdown chunk and adds only the Python grammar.
 */
let loaded: Highlighter | null = null;
let loading: Promise<Highlighter> | null = null;
const loadHighlighter = () => (loading ??= import("../lib/script-source").then((m) => (loaded = m.highlightedLines)));

/**
 * A script's source with line numbers and Python highlighting in Solarized dark (UI-020).
 * The HTML comes only from highlight.js, which escapes the source; until it has arrived the
 * lines show as plain text. The numbers are drawn by CSS, so copying the code leaves them out.
 */
export function ScriptSource(props: { name: string; source: string }) {
  const [highlight, setHighlight] = useState<Highlighter | null>(() => loaded);
  useEffect(() => {
    if (!highlight) void loadHighlighter().then((h) => setHighlight(() => h));
  }, []);
  const lines = useMemo(() => (highlight ? highlight(props.source) : null), [highlight, props.source]);
  const plain = useMemo(() => sourceLines(props.source), [props.source]);
  return (
    <pre class="script-source" role="group" aria-label={`Source of ${props.name}.py`} data-highlighted={lines ? "true" : "false"}>
      <code class="language-python">
        {(lines ?? plain).map((line, i) => (
          <span key={i} class="line" data-line={i + 1}>
            {lines ? <span dangerouslySetInnerHTML={{ __html: line }} /> : line}
            {"\n"}
          </span>
        ))}
      </code>
    </pre>
  );
}
