import { useQuery } from '@tanstack/react-query';
import { fetchWithKey, ndjsonLines } from '../api/download';
import type { LedgerEntry, LedgerQuery } from './ledger-entries';
import { Card, Empty, ErrorNotice, formatNumber, Skeleton, TableWrap } from './ui';

interface Sums {
  entries: number;
  charges: number;
  /** Credits of the charges. */
  charged: number;
  refunds: number;
  /** Credits given back (a positive number). */
  refunded: number;
}

export interface Totals extends Sums {
  byTool: [string, Sums][];
}

function add(sums: Sums, entry: LedgerEntry): void {
  sums.entries++;
  if (entry.kind === 'charge') {
    sums.charges++;
    sums.charged += entry.credits;
  } else {
    sums.refunds++;
    sums.refunded -= entry.credits;
  }
}

const zero = (): Sums => ({ entries: 0, charges: 0, charged: 0, refunds: 0, refunded: 0 });

/** The URL of the ledger's range that `query` names, without a page's cursor or limit. */
export function ledgerUrl(query: LedgerQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string' && value !== '') params.set(name, value);
  }
  const text = params.toString();
  return text ? `/api/v1/ledger?${text}` : '/api/v1/ledger';
}

/**
 * Every entry of the range added up, read as the range's NDJSON stream (what a download reads):
 * the browser holds the sums, never the entries. Stopped when the range changes.
 */
async function totalsOf(query: LedgerQuery, signal: AbortSignal): Promise<Totals> {
  const response = await fetchWithKey(ledgerUrl(query), 'application/x-ndjson', signal);
  const all = zero();
  const tools = new Map<string, Sums>();
  for await (const entry of ndjsonLines<LedgerEntry>(response)) {
    add(all, entry);
    let sums = tools.get(entry.tool);
    if (!sums) tools.set(entry.tool, (sums = zero()));
    add(sums, entry);
  }
  return { ...all, byTool: [...tools].sort(([, a], [, b]) => b.charged - a.charged) };
}

function Figure({ label, value, loading }: { label: string; value?: number; loading: boolean }) {
  return (
    <div className="card stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">
        {loading ? <Skeleton width="60%" height={28} /> : formatNumber(value)}
      </div>
    </div>
  );
}

/** The range's totals: entries, credits charged and refunded, net; and by tool. */
export function LedgerTotals({
  query,
  version,
}: {
  query: LedgerQuery;
  /** Changed when the range is applied again: it is read again. */
  version: number;
}) {
  const totals = useQuery({
    queryKey: ['ledger', 'totals', query, version],
    queryFn: ({ signal }) => totalsOf(query, signal),
    // A whole range is read for these: again only when the range is applied again.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const sums = totals.data;
  const loading = totals.isPending && !totals.error;
  return (
    <>
      <ErrorNotice error={totals.error} title="The totals could not be read" />
      <div className="grid stats" aria-live="polite" aria-busy={loading}>
        <Figure label="Entries" value={sums?.entries} loading={loading} />
        <Figure label="Charges" value={sums?.charges} loading={loading} />
        <Figure label="Credits charged" value={sums?.charged} loading={loading} />
        <Figure label="Refunds" value={sums?.refunds} loading={loading} />
        <Figure label="Credits refunded" value={sums?.refunded} loading={loading} />
        <Figure
          label="Net credits"
          value={sums && sums.charged - sums.refunded}
          loading={loading}
        />
      </div>
      <Card
        title="By tool"
        description="The range's totals, tool by tool"
        flush
        labelledBy="ledger-tools"
      >
        <TableWrap label="Totals by tool">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col" className="num">
                  Charges
                </th>
                <th scope="col" className="num">
                  Credits charged
                </th>
                <th scope="col" className="num">
                  Refunded
                </th>
                <th scope="col" className="num">
                  Net
                </th>
              </tr>
            </thead>
            <tbody>
              {sums?.byTool.map(([tool, figures]) => (
                <tr key={tool}>
                  <td className="mono">{tool}</td>
                  <td className="num">{formatNumber(figures.charges)}</td>
                  <td className="num">{formatNumber(figures.charged)}</td>
                  <td className="num">{formatNumber(figures.refunded)}</td>
                  <td className="num">{formatNumber(figures.charged - figures.refunded)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {sums && sums.byTool.length === 0 && <Empty>No entry in this range.</Empty>}
        </TableWrap>
      </Card>
    </>
  );
}
