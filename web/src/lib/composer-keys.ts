/** What a key press in a chat composer does, as chat applications have it; pure. */

/** The parts of a KeyboardEvent the decision needs. */
export interface ComposerKey {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing: boolean;
  keyCode?: number;
}

/**
 * Whether the key sends the message: Enter, and Ctrl/Cmd+Enter, send; Shift+Enter is left
 * to the textarea (a new line); nothing sends while an input method is composing (the
 * Enter that confirms a Japanese or Chinese candidate), which older Safari reports only as
 * keyCode 229.
 *
 * @example sendsMessage({ key: "Enter", shiftKey: true, ctrlKey: false, metaKey: false, isComposing: false }) // false
 */
export function sendsMessage(e: ComposerKey): boolean {
  if (e.key !== "Enter" || e.isComposing || e.keyCode === 229) return false;
  return !e.shiftKey || e.ctrlKey || e.metaKey;
}

/** The line under a composer that says so. */
export const COMPOSER_KEYS_HINT = "Enter sends, Shift+Enter starts a new line.";
