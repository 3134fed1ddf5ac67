import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, listPage, ok, type Schemas } from '../api/client';
import { useSigned } from '../auth';
import { useCursorPages } from '../components/paging';
import {
  Button,
  Card,
  Empty,
  ErrorNotice,
  LoadingRows,
  PageHead,
  Pager,
  ProgressBar,
  StatusBadge,
  Time,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';

type Invocation = Schemas['OperatorInvocationView'];

const PAGE_SIZE = 25;
/** While calls run their progress is read this often; otherwise less. */
const RUNNING_MS = 1_000;
const IDLE_MS = 5_000;

function Caller({ id }: { id: string }) {
  const href = id.startsWith('prn_') ? `/principals/${id}` : `/keys/${id}`;
  return (
    <Link href={href} className="mono">
      {id}
    </Link>
  );
}

function Outcome({ call }: { call: Invocation }) {
  if (call.status === 'running' || call.status === 'queued') {
    return call.progress ? (
      <ProgressBar
        done={call.progress.done}
        total={call.progress.total}
        label={`Progress of ${call.id}`}
      />
    ) : (
      <span className="cell-sub">
        {call.status === 'queued' ? 'waiting for a slot' : 'started'}
      </span>
    );
  }
  if (call.error) {
    const detail = typeof call.error.detail === 'string' ? call.error.detail : 'invalid input';
    return (
      <span className="cell-sub">
        {call.error.status}: {detail}
      </span>
    );
  }
  return <span className="cell-sub">{call.status === 'succeeded' ? 'answered' : ''}</span>;
}

function CallsTable({
  label,
  calls,
  loading,
  canCancel,
  empty,
}: {
  label: string;
  calls?: Invocation[];
  loading: boolean;
  canCancel: boolean;
  empty: string;
}) {
  const queries = useQueryClient();
  const cancel = useMutation({
    mutationFn: (id: string) =>
      ok(api.DELETE('/api/v1/invocations/{id}', { params: { path: { id } } })),
    onSettled: () => void queries.invalidateQueries({ queryKey: ['invocations'] }),
  });
  return (
    <>
      <ErrorNotice error={cancel.error} title="Not cancelled" />
      <TableWrap label={label}>
        <table>
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Tool</th>
              <th scope="col">Status</th>
              <th scope="col">Progress or outcome</th>
              <th scope="col">Caller</th>
              <th scope="col">Started</th>
              {canCancel && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {loading && <LoadingRows columns={canCancel ? 7 : 6} rows={2} />}
            {calls?.map((call) => {
              const active = call.status === 'running' || call.status === 'queued';
              return (
                <tr key={call.id} data-invocation={call.id}>
                  <td className="mono">{call.id.slice(0, 12)}…</td>
                  <td className="mono">{call.tool}</td>
                  <td>
                    <StatusBadge status={call.status} />
                  </td>
                  <td>
                    <Outcome call={call} />
                  </td>
                  <td>
                    <Caller id={call.caller_id} />
                  </td>
                  <td>
                    <Time at={call.started_at ?? call.created_at} />
                  </td>
                  {canCancel && (
                    <td>
                      {active && (
                        <Button
                          small
                          disabled={cancel.isPending && cancel.variables === call.id}
                          onClick={() => cancel.mutate(call.id)}
                          aria-label={`Cancel the ${call.tool} call ${call.id}`}
                        >
                          Cancel
                        </Button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
        {calls && calls.length === 0 && <Empty>{empty}</Empty>}
      </TableWrap>
    </>
  );
}

function Invocations() {
  const signed = useSigned();
  const pages = useCursorPages<string>([]);
  const running = useQuery({
    queryKey: ['invocations', 'active'],
    queryFn: async () => {
      const [runningCalls, queued] = await Promise.all(
        (['running', 'queued'] as const).map((status) =>
          ok(api.GET('/api/v1/admin/invocations', { params: { query: { status, limit: 100 } } })),
        ),
      );
      return [...queued, ...runningCalls];
    },
    refetchInterval: (query) => (query.state.data?.length ? RUNNING_MS : IDLE_MS),
  });
  const recent = useQuery({
    queryKey: ['invocations', 'recent', pages.cursor],
    queryFn: () =>
      listPage(
        api.GET('/api/v1/admin/invocations', {
          params: {
            query: { limit: PAGE_SIZE, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
          },
        }),
      ),
    refetchInterval: () => (running.data?.length ? RUNNING_MS : IDLE_MS),
    placeholderData: (previous) => previous,
  });
  return (
    <div className="stack">
      <PageHead
        title="Invocations"
        description="Long-running calls of every caller (Prefer: respond-async): kept a day after they end."
      />
      <Card
        title="Running"
        description="Progress as the tools report it, read every second"
        flush
        labelledBy="running"
        actions={running.data && <span className="live">{running.data.length} running</span>}
      >
        <ErrorNotice error={running.error} />
        <CallsTable
          label="Running calls"
          calls={running.data}
          loading={running.isPending}
          canCancel={signed.canWrite}
          empty="No call is running."
        />
      </Card>
      <Card title="Recent" description="Newest first" flush labelledBy="recent">
        <ErrorNotice error={recent.error} />
        <CallsTable
          label="Recent calls"
          calls={recent.data?.items}
          loading={recent.isPending}
          canCancel={signed.canWrite}
          empty="No long-running call in the last day."
        />
        <Pager
          page={pages.number}
          hasPrevious={pages.number > 1}
          hasNext={!!recent.data?.next}
          onPrevious={pages.previous}
          onNext={() => recent.data?.next && pages.next(recent.data.next)}
        />
      </Card>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/invocations',
  title: 'Invocations',
  nav: { label: 'Invocations', order: 40, icon: 'activity' },
  component: Invocations,
};
