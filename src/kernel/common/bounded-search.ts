/**
 * Records a search reads at most for one page. A filter the store cannot answer from an index is
 * applied to the records as they are read, the same way on both stores; past this many a page
 * ends with what it found and where to go on, so no request reads the whole store.
 */
export const SEARCH_BUDGET = 5_000;
/** The provider of the budget (tests make it small). */
export const SEARCH_BUDGET_TOKEN = Symbol('SEARCH_BUDGET');
/** Records read from the store at a time. */
const BATCH = 500;

/** A page of a search: what matched, and where the next page starts while more may match. */
export interface Found<T, P> {
  matches: T[];
  next?: P;
}

/** How a search reads its list: a batch after a position, in the list's own order. */
export interface SearchedList<T, P> {
  read(after: P | undefined, count: number): Promise<T[]>;
  /** Where a record stands in the list (what `read` and the next page start after). */
  positionOf(record: T): P;
}

/**
 * One page of a search over `list`: the records `matches` accepts, at most `page.limit` of them,
 * read a batch at a time from `page.after` within `budget` records; `next` says where the next
 * page starts while more may match.
 */
export async function searchPage<T, P>(
  list: SearchedList<T, P>,
  matches: (record: T) => boolean,
  page: { after?: P; limit: number },
  budget: number,
): Promise<Found<T, P>> {
  const batchSize = Math.min(BATCH, budget);
  const found: T[] = [];
  let after = page.after;
  for (let read = 0; ;) {
    const batch = await list.read(after, batchSize);
    for (const record of batch) {
      if (matches(record)) found.push(record);
      // One more than the page: the page is full and more match.
      if (found.length > page.limit) {
        return {
          matches: found.slice(0, page.limit),
          next: list.positionOf(found[page.limit - 1]),
        };
      }
      after = list.positionOf(record);
      if (++read === budget) return { matches: found, next: after };
    }
    if (batch.length < batchSize) return { matches: found };
  }
}
