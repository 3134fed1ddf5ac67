import { useState } from 'react';

/**
 * Pages of a list read with cursors: the cursors of the pages seen, so that Previous goes back.
 * A change of any of `resetOn` (a search, a filter) starts again at the first page.
 */
export function useCursorPages<C>(resetOn: unknown[]) {
  const key = JSON.stringify(resetOn);
  const [state, setState] = useState<{ key: string; cursors: (C | undefined)[] }>({
    key,
    cursors: [undefined],
  });
  const cursors = state.key === key ? state.cursors : [undefined];
  const move = (next: (C | undefined)[]) => setState({ key, cursors: next });
  return {
    cursor: cursors[cursors.length - 1],
    number: cursors.length,
    next: (cursor: C) => move([...cursors, cursor]),
    previous: () => move(cursors.length > 1 ? cursors.slice(0, -1) : cursors),
  };
}
