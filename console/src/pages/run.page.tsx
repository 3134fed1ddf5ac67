import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import { LedgerEntries } from '../components/ledger-entries';
import { IdLink } from '../components/links';
import { SpentBar } from '../components/runs';
import {
  Button,
  Card,
  Empty,
  ErrorNotice,
  formatNumber,
  Loading,
  Notice,
  PageHead,
  Scopes,
  StatusBadge,
  TableWrap,
  Time,
} from '../components/ui';
import type { PageDefinition } from '../pages';

type Run = Schemas['RunView'];

const REASONS: Record<string, string> = {
  deleted: 'ended by hand',
  expired: 'its time ran out',
  parent_revoked: 'its parent was revoked',
  parent_disabled: 'its parent was disabled',
};

const EXPIRY: Record<Run['status'], string> = {
  active: 'Expires',
  expired: 'Expired',
  ended: 'Would have expired',
};

function nameOf(run: Run): string {
  return run.label ?? run.id;
}

function EndDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const queries = useQueryClient();
  const end = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/runs/{id}', { params: { path: { id: run.id } } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['runs'] });
      onClose();
    },
  });
  return (
    <Dialog
      title={`End “${nameOf(run)}”?`}
      description="Its token is refused from the next call on, on every instance; calls running now finish, its queued long-running calls are cancelled and refunded. An ended run cannot be started again."
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button kind="danger" disabled={end.isPending} onClick={() => end.mutate()}>
            {end.isPending ? 'Ending…' : `End “${nameOf(run)}”`}
          </Button>
        </>
      }
    >
      <ErrorNotice error={end.error} title="Not ended" />
    </Dialog>
  );
}

function Facts({ run }: { run: Run }) {
  const metadata = Object.entries(run.metadata);
  return (
    <Card title="Settings" labelledBy="run-settings">
      <dl className="facts">
        <dt>Id</dt>
        <dd className="mono">{run.id}</dd>
        <dt>Parent</dt>
        <dd>
          {run.parent.kind} <IdLink id={run.parent.id} />
        </dd>
        <dt>Budget</dt>
        <dd>
          <SpentBar run={run} />
          <span className="cell-sub">
            {formatNumber(run.spent)} spent, {formatNumber(run.remaining)} left of{' '}
            {formatNumber(run.budget)} credits
          </span>
        </dd>
        <dt>Scopes</dt>
        <dd>
          <Scopes scopes={run.scopes} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={run.created_at} />
        </dd>
        <dt>{EXPIRY[run.status]}</dt>
        <dd>
          <Time at={run.expires_at} />
        </dd>
        {run.ended_reason && (
          <>
            <dt>Ended</dt>
            <dd>
              <Time at={run.ended_at ?? run.expires_at} />: {REASONS[run.ended_reason]}
            </dd>
          </>
        )}
        {metadata.length > 0 && (
          <>
            <dt>Metadata</dt>
            <dd className="details-list">
              {metadata.map(([name, value]) => (
                <span key={name}>
                  <b>{name}</b> {value}
                </span>
              ))}
            </dd>
          </>
        )}
      </dl>
    </Card>
  );
}

function SpentByTool({ run }: { run: Run }) {
  const tools = Object.entries(run.spent_by_tool ?? {}).sort(([, a], [, b]) => b - a);
  return (
    <Card title="Spent by tool" description="Credits, after refunds" flush labelledBy="by-tool">
      <TableWrap label="Spent by tool">
        <table>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col" className="num">
                Credits
              </th>
              <th scope="col" className="num">
                Of the spending
              </th>
            </tr>
          </thead>
          <tbody>
            {tools.map(([tool, credits]) => (
              <tr key={tool}>
                <td className="mono">{tool}</td>
                <td className="num">{formatNumber(credits)}</td>
                <td className="num">
                  {run.spent ? `${Math.round((credits / run.spent) * 100)} %` : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {tools.length === 0 && <Empty>Nothing spent yet.</Empty>}
      </TableWrap>
    </Card>
  );
}

function RunPage() {
  const { id } = useParams<{ id: string }>();
  const signed = useSigned();
  const [ending, setEnding] = useState(false);
  const runQuery = useQuery({
    queryKey: ['runs', 'one', id],
    queryFn: () => ok(api.GET('/api/v1/runs/{id}', { params: { path: { id } } })),
    refetchInterval: 5_000,
  });
  const run = runQuery.data;
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/runs">Runs</Link>}
        title={run ? nameOf(run) : 'Run'}
        description={run && <StatusBadge status={run.status} />}
        actions={
          signed.canWrite &&
          run?.status === 'active' && (
            <Button kind="danger" onClick={() => setEnding(true)}>
              End run
            </Button>
          )
        }
      />
      <ErrorNotice error={runQuery.error} />
      {run?.status === 'ended' && run.ended_reason === 'deleted' && (
        <Notice>This run has ended: its token is refused.</Notice>
      )}
      {!run ? (
        !runQuery.error && <Loading label="Loading the run" />
      ) : (
        <>
          <div className="grid two">
            <Facts run={run} />
            <SpentByTool run={run} />
          </div>
          <Card
            title="Ledger entries"
            description="Every counted call and refund of the run"
            flush
            labelledBy="run-ledger"
          >
            <LedgerEntries
              query={{ run: run.id, from: run.created_at }}
              label="Ledger entries of the run"
              showRun={false}
              live={run.status === 'active'}
            />
          </Card>
        </>
      )}
      {ending && run && <EndDialog run={run} onClose={() => setEnding(false)} />}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/runs/:id',
  title: 'Run',
  component: RunPage,
};
