/**
 * Text that an operator or a client gives the service and that it shows again: key names in
 * answers, in the CLI's output, in the audit trail. Such text must not be able to act on the
 * terminal that shows it (an ESC sequence clears the screen or sets the window title, a CR or LF
 * forges a row, a bidi override reverses what follows) nor break an encoder (a lone surrogate).
 */

/**
 * The characters a label may not hold: Unicode Cc (C0, DEL, C1), the bidi embeddings, overrides
 * and isolates, and UTF-16 surrogates that are not half of a pair. `u`: a pair is one code point,
 * outside the surrogate range, so only a lone half matches.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\uD800-\uDFFF]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

/**
 * The same rule as a JSON Schema `pattern` (ECMA-262), for the schemas OpenAPI, discovery and MCP
 * publish and the compiled validator checks. It holds with or without the `u` flag: without it a
 * surrogate pair is two code units, which the second alternative accepts together.
 */
export const LABEL_PATTERN =
  '^(?:[^\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';

/** `U+001B`: how a refused or escaped character is named. */
function codePoint(character: string): string {
  return `U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why a text is not a label (naming the first character at fault), or undefined when it is one. */
export function labelProblem(text: string): string | undefined {
  const found = UNSAFE.exec(text);
  if (!found) return undefined;
  return `Control characters, bidi controls and lone surrogates are not allowed (found ${codePoint(found[0])})`;
}

/** The usual short escapes, so that a forged row reads as what it is. */
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text as it may reach a terminal, whatever was stored: every character `labelProblem` refuses is
 * written as a visible escape (`\n`, `\r`, `\t`, else `\u001b`). JSON stays JSON: `\uXXXX` is a
 * JSON escape of the same character, and JSON.stringify already escaped the C0 ones.
 */
export function printable(text: string): string {
  return text.replace(
    UNSAFE_ALL,
    (character) =>
      SHORT_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `1 second`, `2 seconds`: a count with its noun in the number it takes. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
