import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { IdLink } from '../components/links';
import { RunName, SpentBar } from '../components/runs';
import { useCursorPages } from '../components/paging';
import {
  Empty,
  ErrorNotice,
  LoadingRows,
  PageHead,
  Pager,
  StatusBadge,
  TableWrap,
  Time,
} from '../components/ui';
import type { PageDefinition } from '../pages';

const PAGE_SIZE = 25;
const STATUSES = ['active', 'ended', 'expired'] as const;
type Status = (typeof STATUSES)[number];
const PARENT = /^(key_[0-9a-f]{16}|prn_[0-9a-f]{32})$/;

type Run = Schemas['RunView'];

function RunRow({ run }: { run: Run }) {
  return (
    <tr data-run={run.id}>
      <td>
        <RunName run={run} />
      </td>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td>
        <SpentBar run={run} />
      </td>
      <td>
        <IdLink id={run.parent.id} />
      </td>
      <td>
        <Time at={run.created_at} />
      </td>
      <td>
        {run.status === 'ended' ? (
          <span className="cell-sub">
            ended <Time at={run.ended_at} />
          </span>
        ) : (
          <Time at={run.expires_at} />
        )}
      </td>
    </tr>
  );
}

function Runs() {
  const statusId = useId();
  const parentId = useId();
  const [status, setStatus] = useState<Status | ''>('');
  const [typed, setTyped] = useState('');
  const [parent, setParent] = useState('');
  const parentValid = typed.trim() === '' || PARENT.test(typed.trim());
  const pages = useCursorPages<string>([status, parent]);

  useEffect(() => {
    const timer = setTimeout(() => {
      const value = typed.trim();
      if (value === '' || PARENT.test(value)) setParent(value);
    }, 300);
    return () => clearTimeout(timer);
  }, [typed]);

  const runs = useQuery({
    queryKey: ['runs', 'list', status, parent, pages.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/runs', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(status ? { status } : {}),
              ...(parent ? { parent } : {}),
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
    refetchInterval: 10_000,
  });
  const found = runs.data;

  return (
    <div className="stack">
      <PageHead
        title="Runs"
        description="Budgets of credits that keys and principals hand their agents, one a task: what each has spent, newest first."
      />
      <section className="card" aria-label="Runs">
        <form className="toolbar" role="search" onSubmit={(event) => event.preventDefault()}>
          <div className="field narrow">
            <label htmlFor={statusId}>Status</label>
            <select
              id={statusId}
              value={status}
              onChange={(event) => setStatus(event.target.value as Status | '')}
            >
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={parentId}>Parent</label>
            <input
              id={parentId}
              type="search"
              placeholder="A key id or a principal id"
              value={typed}
              aria-invalid={!parentValid}
              aria-describedby={`${parentId}-hint`}
              onChange={(event) => setTyped(event.target.value)}
            />
            <span className="hint" id={`${parentId}-hint`}>
              {parentValid ? 'key_… or prn_…' : 'Not a key id (key_…) or a principal id (prn_…).'}
            </span>
          </div>
        </form>
        <ErrorNotice error={runs.error} />
        <TableWrap label="Runs">
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Spent of budget</th>
                <th scope="col">Parent</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {runs.isPending && <LoadingRows columns={6} />}
              {found?.runs.map((run) => (
                <RunRow key={run.id} run={run} />
              ))}
            </tbody>
          </table>
          {found && found.runs.length === 0 && (
            <Empty>{status || parent ? 'No run matches.' : 'No run yet.'}</Empty>
          )}
        </TableWrap>
        <Pager
          page={pages.number}
          hasPrevious={pages.number > 1}
          hasNext={found?.next_cursor != null}
          onPrevious={pages.previous}
          onNext={() => found?.next_cursor != null && pages.next(found.next_cursor)}
        />
      </section>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/runs',
  title: 'Runs',
  nav: { label: 'Runs', order: 35, icon: 'run' },
  component: Runs,
};
