import type { KeyPosition } from './key.store';
import { encodePosition, decodePosition } from '../kernel/http/page-cursor';
const KEY_ID = /^key_[0-9a-f]{16}$/;

/** An opaque cursor: where the next page of the key list starts (after this key). */
export function encodeCursor(after: KeyPosition): string {
  return encodePosition(after.created_at, after.id);
}

/** The position a cursor names, or null for anything the service would not have issued. */
export function decodeCursor(raw: unknown): KeyPosition | null {
  const position = decodePosition(raw, KEY_ID);
  return position && { created_at: position[0], id: position[1] };
}
