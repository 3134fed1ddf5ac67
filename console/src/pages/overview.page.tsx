import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { DailyFigure } from '../components/charts';
import {
  Card,
  Empty,
  ErrorNotice,
  formatNumber,
  Loading,
  LoadingRows,
  PageHead,
  Skeleton,
  StatusBadge,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';

/** How often the overview asks again while it is open. */
const LIVE_MS = 10_000;

type Health = Schemas['HealthView'];

async function health(): Promise<Health> {
  const { data, error, response } = await api.GET('/health');
  // A degraded service answers 503 with the same view.
  if (response.status === 503 && error && 'components' in error) return error;
  if (!data) throw new ApiFailure(response.status, 'The health check did not answer.');
  return data;
}

function Stat({
  label,
  value,
  note,
  loading,
}: {
  label: string;
  value: number | undefined;
  note?: string;
  loading: boolean;
}) {
  return (
    <div className="card stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">
        {loading ? <Skeleton width="60%" height={28} /> : formatNumber(value)}
      </div>
      {note && <div className="stat-note">{note}</div>}
    </div>
  );
}

function callerLink(caller: Schemas['TopCallerView']) {
  const href = caller.kind === 'key' ? `/keys/${caller.id}` : `/principals/${caller.id}`;
  return (
    <Link href={href}>
      <span className="cell-title">{caller.name}</span>
    </Link>
  );
}

function TopCallers({ top, loading }: { top?: Schemas['TopUsageView']; loading: boolean }) {
  return (
    <Card title="Top callers" description="By credits, last 30 days" flush labelledBy="top-callers">
      <TableWrap label="Top callers">
        <table>
          <thead>
            <tr>
              <th scope="col">Key or principal</th>
              <th scope="col" className="num">
                Calls
              </th>
              <th scope="col" className="num">
                Credits
              </th>
            </tr>
          </thead>
          <tbody>
            {loading && <LoadingRows columns={3} rows={3} />}
            {top?.callers.map((caller) => (
              <tr key={caller.id}>
                <td>
                  {callerLink(caller)} <span className="cell-sub">{caller.kind}</span>
                </td>
                <td className="num">{formatNumber(caller.calls)}</td>
                <td className="num">{formatNumber(caller.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {top && !top.callers.length && <Empty>No calls in the last 30 days.</Empty>}
      </TableWrap>
    </Card>
  );
}

function TopTools({ top, loading }: { top?: Schemas['TopUsageView']; loading: boolean }) {
  return (
    <Card title="Top tools" description="By calls, last 30 days" flush labelledBy="top-tools">
      <TableWrap label="Top tools">
        <table>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col" className="num">
                Calls
              </th>
              <th scope="col" className="num">
                Failed
              </th>
              <th scope="col" className="num">
                Credits
              </th>
            </tr>
          </thead>
          <tbody>
            {loading && <LoadingRows columns={4} rows={3} />}
            {top?.tools.map((tool) => (
              <tr key={tool.tool}>
                <td>
                  <span className="cell-title mono">{tool.tool}</span>
                </td>
                <td className="num">{formatNumber(tool.calls)}</td>
                <td className="num">{formatNumber(tool.failed)}</td>
                <td className="num">{formatNumber(tool.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {top && !top.tools.length && <Empty>No calls in the last 30 days.</Empty>}
      </TableWrap>
    </Card>
  );
}

function Errors({ errors }: { errors?: Schemas['ErrorCountsView'] }) {
  const max = Math.max(1, ...(errors?.statuses.map((s) => s.count) ?? []));
  return (
    <Card
      title="Errors by status"
      description={
        errors
          ? `This instance, since ${new Date(errors.since).toLocaleString('en', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' })} UTC`
          : 'This instance, since it started'
      }
      labelledBy="errors-by-status"
    >
      {!errors ? (
        <Loading />
      ) : errors.statuses.length === 0 ? (
        <Empty>No error answered since this instance started.</Empty>
      ) : (
        <ul className="meter-list">
          {errors.statuses.map(({ status, count }) => (
            <li key={status} className="meter-row">
              <span>
                <span className="cell-title">{status}</span>{' '}
                <span className="cell-sub">{STATUS_TEXT[status] ?? ''}</span>
              </span>
              <span className="mono">{formatNumber(count)}</span>
              <span className="progress-track" aria-hidden="true">
                <span
                  className={`progress-fill ${status >= 500 ? 'meter-fill-danger' : 'meter-fill-warn'}`}
                  style={{ width: `${(count / max) * 100}%`, display: 'block' }}
                />
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  402: 'Limit exceeded',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Too large',
  415: 'Media type',
  422: 'Idempotency mismatch',
  429: 'Rate limited',
  500: 'Server error',
  503: 'Unavailable',
  504: 'Deadline passed',
};

function HealthCard({
  health: view,
  issuers,
  error,
}: {
  health?: Health;
  issuers?: Schemas['IssuersView'];
  error: unknown;
}) {
  return (
    <Card
      title="Health"
      description={view ? `Version ${view.version}` : undefined}
      actions={view && <StatusBadge status={view.status} />}
      labelledBy="health"
    >
      <ErrorNotice error={error} />
      {!view ? (
        <Loading />
      ) : (
        <dl className="facts">
          <dt>Store</dt>
          <dd>
            <StatusBadge status={view.components.store.status} />
          </dd>
          <dt>Redis</dt>
          <dd>
            {view.components.redis.status === 'not_configured' ? (
              <span className="cell-sub">not used (SQLite)</span>
            ) : (
              <>
                <StatusBadge status={view.components.redis.status} />{' '}
                <span className="cell-sub">
                  {view.components.redis.mode}, {view.components.redis.nodes} node(s)
                </span>
              </>
            )}
          </dd>
          <dt>OAuth issuers</dt>
          <dd>
            {!issuers ? (
              <Skeleton width="50%" />
            ) : issuers.issuers.length === 0 ? (
              <span className="cell-sub">none configured</span>
            ) : (
              <ul className="meter-list">
                {issuers.issuers.map((issuer) => (
                  <li key={issuer.issuer}>
                    <StatusBadge status={issuer.status} />{' '}
                    <span className="mono">{issuer.issuer}</span>
                    {issuer.failure && <div className="cell-sub">{issuer.failure}</div>}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      )}
    </Card>
  );
}

function Overview() {
  const live = { refetchInterval: LIVE_MS };
  const usage = useQuery({
    queryKey: ['admin', 'usage', 30],
    queryFn: () => ok(api.GET('/api/v1/admin/usage', { params: { query: { days: 30 } } })),
    ...live,
  });
  const top = useQuery({
    queryKey: ['admin', 'top', 30],
    queryFn: () =>
      ok(api.GET('/api/v1/admin/usage/top', { params: { query: { days: 30, limit: 5 } } })),
    ...live,
  });
  const errors = useQuery({
    queryKey: ['admin', 'errors'],
    queryFn: () => ok(api.GET('/api/v1/admin/errors')),
    ...live,
  });
  const healthQuery = useQuery({ queryKey: ['health'], queryFn: health, ...live });
  const issuers = useQuery({
    queryKey: ['admin', 'issuers'],
    queryFn: () => ok(api.GET('/api/v1/admin/issuers')),
    ...live,
  });

  const today = usage.data?.history[0];
  const totals = usage.data?.totals;
  const failedShare =
    totals && totals.calls
      ? `${((totals.failed / totals.calls) * 100).toFixed(1)} % of calls`
      : undefined;
  const updated = usage.dataUpdatedAt
    ? new Date(usage.dataUpdatedAt).toLocaleTimeString('en', { hour12: false })
    : null;

  return (
    <div className="stack">
      <PageHead
        title="Overview"
        description="Every key's and principal's use of the service, from its usage counters (UTC days)."
        actions={updated && <span className="live">Live · updated {updated}</span>}
      />
      <ErrorNotice error={usage.error ?? top.error ?? errors.error ?? issuers.error} />
      <div className="grid stats">
        <Stat label="Calls today" value={today?.calls} loading={usage.isPending} />
        <Stat label="Credits today" value={today?.credits} loading={usage.isPending} />
        <Stat label="Calls, 30 days" value={totals?.calls} loading={usage.isPending} />
        <Stat label="Credits, 30 days" value={totals?.credits} loading={usage.isPending} />
        <Stat
          label="Failed (5xx), 30 days"
          value={totals?.failed}
          note={failedShare}
          loading={usage.isPending}
        />
        <Stat
          label="Active callers, 30 days"
          value={usage.data?.subjects}
          note="keys and principals"
          loading={usage.isPending}
        />
      </div>
      <Card title="Calls and credits" description="Last 30 days, by UTC day" labelledBy="daily">
        {usage.data ? (
          <DailyFigure days={usage.data.history} label="Calls and credits, last 30 days" />
        ) : (
          <Loading label="Loading usage" />
        )}
      </Card>
      <div className="grid two">
        <TopCallers top={top.data} loading={top.isPending} />
        <TopTools top={top.data} loading={top.isPending} />
      </div>
      <div className="grid two">
        <Errors errors={errors.data} />
        <HealthCard health={healthQuery.data} issuers={issuers.data} error={healthQuery.error} />
      </div>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/',
  title: 'Overview',
  nav: { label: 'Overview', order: 10, icon: 'overview' },
  component: Overview,
};
