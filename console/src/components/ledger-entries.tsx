import { useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import type { operations } from '../api/openapi';
import { IdLink } from './links';
import { useCursorPages } from './paging';
import {
  Empty,
  ErrorNotice,
  formatNumber,
  LoadingRows,
  Pager,
  StatusBadge,
  TableWrap,
  Time,
} from './ui';

type LedgerParameters = NonNullable<operations['listLedger']['parameters']['query']>;
/** A range of the ledger and its filters, by the route's own parameter names. */
export type LedgerQuery = {
  [name in Exclude<keyof LedgerParameters, 'cursor' | 'limit'>]?: string;
};
export type LedgerEntry = Schemas['LedgerEntryView'];

const PAGE_SIZE = 25;

function EntryRow({ entry, showRun }: { entry: LedgerEntry; showRun: boolean }) {
  return (
    <tr data-entry={entry.id}>
      <td>
        <Time at={entry.at} />
      </td>
      <td>
        <IdLink id={entry.subject.id} />
        {entry.subject.external_id && (
          <div className="cell-sub mono">{entry.subject.external_id}</div>
        )}
      </td>
      {showRun && <td>{entry.run_id ? <IdLink id={entry.run_id} short /> : '—'}</td>}
      <td className="mono">{entry.tool}</td>
      <td>
        <StatusBadge status={entry.kind} />
      </td>
      <td>{entry.transport}</td>
      <td className="num">{formatNumber(entry.credits)}</td>
    </tr>
  );
}

/**
 * Entries of the ledger that `query` names (its range and filters), oldest first, a page at a
 * time. A change of the query starts again at its first page.
 */
export function LedgerEntries({
  query,
  label,
  showRun = true,
  live,
}: {
  query: LedgerQuery;
  label: string;
  showRun?: boolean;
  /** Read again every few seconds (entries are still being written). */
  live?: boolean;
}) {
  const pages = useCursorPages<string>([query]);
  const entries = useQuery({
    queryKey: ['ledger', 'entries', query, pages.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/ledger', {
          params: {
            query: {
              ...query,
              limit: PAGE_SIZE,
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
    refetchInterval: live ? 5_000 : false,
  });
  const found = entries.data;
  const columns = showRun ? 7 : 6;
  return (
    <>
      <ErrorNotice error={entries.error} />
      <TableWrap label={label}>
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Subject</th>
              {showRun && <th scope="col">Run</th>}
              <th scope="col">Tool</th>
              <th scope="col">Kind</th>
              <th scope="col">Transport</th>
              <th scope="col" className="num">
                Credits
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.isPending && <LoadingRows columns={columns} />}
            {found?.entries.map((entry) => (
              <EntryRow key={entry.id} entry={entry} showRun={showRun} />
            ))}
          </tbody>
        </table>
        {found && found.entries.length === 0 && <Empty>No entry in this range.</Empty>}
      </TableWrap>
      <Pager
        page={pages.number}
        hasPrevious={pages.number > 1}
        hasNext={found?.next_cursor != null}
        onPrevious={pages.previous}
        onNext={() => found?.next_cursor != null && pages.next(found.next_cursor)}
        note="oldest first"
      />
    </>
  );
}
