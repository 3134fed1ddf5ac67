import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, listPage, ok } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import { emptyKeyForm, KeyFields, limitsOf, type KeyFormState } from '../components/key-form';
import { SecretDialog } from '../components/secret';
import {
  Button,
  Empty,
  ErrorNotice,
  formatLimit,
  LoadingRows,
  PageHead,
  Pager,
  Scopes,
  StatusBadge,
  Time,
  TableWrap,
} from '../components/ui';
import { useCursorPages } from '../components/paging';
import type { PageDefinition } from '../pages';

const PAGE_SIZE = 25;
const STATUSES = ['active', 'disabled', 'expired', 'revoked'] as const;
type Status = (typeof STATUSES)[number];

function CreateKeyDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (created: { id: string; name: string; key: string }) => void;
}) {
  const [form, setForm] = useState<KeyFormState>(emptyKeyForm());
  const queries = useQueryClient();
  const create = useMutation({
    mutationFn: () => {
      const scopes =
        form.template === 'custom'
          ? { scopes: form.scopes }
          : { scope_template: form.template as 'read_only' | 'standard' | 'admin' };
      const expires = form.expiresInDays.trim();
      return ok(
        api.POST('/api/v1/auth/api-keys', {
          body: {
            name: form.name,
            ...scopes,
            ...(form.plan ? { plan: form.plan } : {}),
            ...limitsOf(form),
            expires_in_days: expires === '' ? null : Number(expires),
          },
        }),
      );
    },
    onSuccess: (created) => {
      void queries.invalidateQueries({ queryKey: ['keys'] });
      onCreated({ id: created.id, name: created.name, key: created.key });
    },
  });
  return (
    <Dialog
      title="Create a key"
      description="Its secret is shown once, when it is made."
      onClose={onClose}
      onSubmit={() => create.mutate()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </Button>
        </>
      }
    >
      <KeyFields form={form} onChange={setForm} creating />
      <ErrorNotice error={create.error} title="The key was not created" />
    </Dialog>
  );
}

function Keys() {
  const signed = useSigned();
  const [, navigate] = useLocation();
  const searchId = useId();
  const statusId = useId();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<Status | ''>('');
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ id: string; name: string; key: string } | null>(null);
  const pages = useCursorPages<string>([q, status]);

  // The search follows the typing, a moment after it stops.
  useEffect(() => {
    const timer = setTimeout(() => setQ(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);

  const keys = useQuery({
    queryKey: ['keys', 'search', q, status, pages.cursor],
    queryFn: () =>
      listPage(
        api.GET('/api/v1/admin/api-keys', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(q ? { q } : {}),
              ...(status ? { status } : {}),
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });

  return (
    <div className="stack">
      <PageHead
        title="Keys"
        description="Every API key: its scopes, plan and limits, its usage and its lifecycle."
        actions={
          signed.canWrite && (
            <Button kind="primary" onClick={() => setCreating(true)}>
              Create key
            </Button>
          )
        }
      />
      <section className="card" aria-label="Keys">
        <form className="toolbar" role="search" onSubmit={(event) => event.preventDefault()}>
          <div className="field">
            <label htmlFor={searchId}>Search</label>
            <input
              id={searchId}
              type="search"
              placeholder="Name, prefix (sk_…) or id"
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setQ(typed.trim());
              }}
            />
          </div>
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
        </form>
        <ErrorNotice error={keys.error} />
        <TableWrap label="Keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Status</th>
                <th scope="col">Scopes</th>
                <th scope="col">Plan</th>
                <th scope="col" className="num">
                  Daily limit
                </th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {keys.isPending && <LoadingRows columns={8} />}
              {keys.data?.items.map((key) => (
                <tr key={key.id}>
                  <td>
                    <Link href={`/keys/${key.id}`} className="cell-title">
                      {key.name}
                    </Link>
                    <div className="cell-sub mono">{key.id}</div>
                  </td>
                  <td className="mono">{key.prefix}…</td>
                  <td>
                    <StatusBadge status={key.status} />
                  </td>
                  <td>
                    <Scopes scopes={key.scopes} />
                  </td>
                  <td>{key.plan}</td>
                  <td className="num">
                    {key.daily_limit === null ? (
                      <span className="cell-sub">plan's</span>
                    ) : (
                      formatLimit(key.daily_limit)
                    )}
                  </td>
                  <td>
                    <Time at={key.last_used_at} />
                  </td>
                  <td>
                    <Time at={key.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {keys.data && keys.data.items.length === 0 && (
            <Empty>
              {keys.data.next
                ? 'None in the keys searched so far: Next searches on.'
                : q || status
                  ? 'No key matches.'
                  : 'No keys yet.'}
            </Empty>
          )}
        </TableWrap>
        <Pager
          page={pages.number}
          hasPrevious={pages.number > 1}
          hasNext={!!keys.data?.next}
          onPrevious={pages.previous}
          onNext={() => keys.data?.next && pages.next(keys.data.next)}
        />
      </section>
      {creating && (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret(created);
          }}
        />
      )}
      {secret && (
        <SecretDialog
          title="Key created"
          name={secret.name}
          secret={secret.key}
          onClose={() => {
            const id = secret.id;
            setSecret(null);
            navigate(`/keys/${id}`);
          }}
        />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/keys',
  title: 'Keys',
  nav: { label: 'Keys', order: 20, icon: 'key' },
  component: Keys,
};
