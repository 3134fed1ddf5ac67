import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import type { operations } from '../api/openapi';
import { useCursorPages } from '../components/paging';
import {
  Empty,
  ErrorNotice,
  LoadingRows,
  PageHead,
  Pager,
  Time,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';

const PAGE_SIZE = 50;
type Action = NonNullable<
  NonNullable<operations['searchAuditEntries']['parameters']['query']>['action']
>;
/**
 * Every action the API's search takes, in the order shown (a record of them, so that the build
 * fails when the API gains or loses one).
 */
const ACTION_NAMES: Record<Action, true> = {
  'api_key.create': true,
  'api_key.update': true,
  'api_key.rotate': true,
  'api_key.revoke': true,
  'principal.update': true,
  'principal.delete': true,
  'config.set': true,
  'doctor.fix': true,
  'webhook.created': true,
  'webhook.updated': true,
  'webhook.secret_rotated': true,
  'webhook.deleted': true,
  'webhook.disabled': true,
  'run.created': true,
  'run.updated': true,
  'run.deleted': true,
  'source.created': true,
  'source.updated': true,
  'source.deleted': true,
};
const ACTIONS = Object.keys(ACTION_NAMES) as Action[];
const ACTOR = /^(key_[0-9a-f]{16}|prn_[0-9a-f]{32}|cli)$/;

type Entry = Schemas['AuditEntryView'];

/** A key or principal id as a link to its page; anything else as text. */
function Subject({ id }: { id: string }) {
  if (/^key_[0-9a-f]{16}$/.test(id))
    return (
      <Link href={`/keys/${id}`} className="mono">
        {id}
      </Link>
    );
  if (/^prn_[0-9a-f]{32}$/.test(id)) {
    return (
      <Link href={`/principals/${id}`} className="mono">
        {id}
      </Link>
    );
  }
  return <span className="mono">{id}</span>;
}

function Actor({ entry }: { entry: Entry }) {
  if (entry.actor_key_id) return <Subject id={entry.actor_key_id} />;
  if (entry.actor_principal_id) return <Subject id={entry.actor_principal_id} />;
  const source = entry.details.source;
  return <span className="cell-sub">{typeof source === 'string' ? source : 'the service'}</span>;
}

function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueText).join(', ') || 'none';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  return value === null || value === undefined ? 'none' : JSON.stringify(value);
}

/** An entry's details in words: `field: from → to` for a change, `field: value` otherwise. */
function Details({ entry }: { entry: Entry }) {
  const parts = Object.entries(entry.details)
    .filter(([name, value]) => name !== 'source' && value !== null)
    .map(([name, value]) => {
      const change = value as { from?: unknown; to?: unknown };
      const text =
        value && typeof value === 'object' && 'from' in change && 'to' in change
          ? `${valueText(change.from)} → ${valueText(change.to)}`
          : valueText(value);
      return (
        <span key={name}>
          <b>{name}</b> {text}
        </span>
      );
    });
  return <div className="details-list">{parts}</div>;
}

function Audit() {
  const actionId = useId();
  const actorId = useId();
  const [action, setAction] = useState<Action | ''>('');
  const [typed, setTyped] = useState('');
  const [actor, setActor] = useState('');
  const actorValid = typed.trim() === '' || ACTOR.test(typed.trim());
  const pages = useCursorPages<string>([action, actor]);

  useEffect(() => {
    const timer = setTimeout(() => {
      const value = typed.trim();
      if (value === '' || ACTOR.test(value)) setActor(value);
    }, 300);
    return () => clearTimeout(timer);
  }, [typed]);

  const entries = useQuery({
    queryKey: ['audit', action, actor, pages.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/audit', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(action ? { action } : {}),
              ...(actor ? { actor } : {}),
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const found = entries.data;

  return (
    <div className="stack">
      <PageHead
        title="Audit trail"
        description="Who changed which key, principal or setting, newest first; kept 90 days."
      />
      <section className="card" aria-label="Audit entries">
        <form className="toolbar" role="search" onSubmit={(event) => event.preventDefault()}>
          <div className="field narrow">
            <label htmlFor={actionId}>Action</label>
            <select
              id={actionId}
              value={action}
              onChange={(event) => setAction(event.target.value as Action | '')}
            >
              <option value="">Any action</option>
              {ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={actorId}>Actor</label>
            <input
              id={actorId}
              type="search"
              placeholder="A key id, a principal id, or cli"
              value={typed}
              aria-invalid={!actorValid}
              aria-describedby={`${actorId}-hint`}
              onChange={(event) => setTyped(event.target.value)}
            />
            <span className="hint" id={`${actorId}-hint`}>
              {actorValid ? 'key_…, prn_… or cli' : 'Not a key id, a principal id or cli.'}
            </span>
          </div>
        </form>
        <ErrorNotice error={entries.error} />
        <TableWrap label="Audit entries">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.isPending && <LoadingRows columns={5} />}
              {found?.entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Time at={entry.at} />
                  </td>
                  <td>
                    <span className="chip">{entry.action}</span>
                  </td>
                  <td>
                    <Actor entry={entry} />
                  </td>
                  <td>
                    <Subject id={entry.target} />
                  </td>
                  <td className="wrap">
                    <Details entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {found && found.entries.length === 0 && (
            <Empty>
              {found.next_cursor
                ? 'None in the entries searched so far: Next searches on.'
                : 'No entry matches.'}
            </Empty>
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
  path: '/audit',
  title: 'Audit trail',
  nav: { label: 'Audit trail', order: 50, icon: 'audit' },
  component: Audit,
};
