import { useEffect, useState } from 'react';

/**
 * Pages of a list read with cursors: the cursors of the pages seen, so that Previous goes back.
 * A change of any of `resetOn` (a search, a filter) starts again at the first page.
 */
export function useCursorPages<C>(resetOn: unknown[]) {
  const [cursors, setCursors] = useState<(C | undefined)[]>([undefined]);
  const key = JSON.stringify(resetOn);
  useEffect(() => setCursors([undefined]), [key]);
  return {
    cursor: cursors[cursors.length - 1],
    number: cursors.length,
    next: (cursor: C) => setCursors((seen) => [...seen, cursor]),
    previous: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
  };
}
