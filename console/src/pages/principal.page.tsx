import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import { usePlans } from '../api/queries';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import {
  Button,
  Card,
  ErrorNotice,
  formatLimit,
  Loading,
  Notice,
  PageHead,
  StatusBadge,
  Time,
} from '../components/ui';
import { UsageSection } from '../components/usage';
import type { PageDefinition } from '../pages';

type Principal = Schemas['PrincipalView'];

const text = (value: number | null) => (value === null ? '' : String(value));
const limit = (value: string) => (value.trim() === '' ? null : Number(value.trim()));

function EditDialog({ principal, onClose }: { principal: Principal; onClose: () => void }) {
  const plans = usePlans();
  const queries = useQueryClient();
  const ids = { plan: useId(), daily: useId(), monthly: useId(), rate: useId() };
  const [plan, setPlan] = useState(principal.operator_plan ?? '');
  const [daily, setDaily] = useState(text(principal.daily_limit));
  const [monthly, setMonthly] = useState(text(principal.monthly_limit));
  const [rate, setRate] = useState(text(principal.rate_limit));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/api/v1/auth/principals/{id}', {
          params: { path: { id: principal.id } },
          body: {
            plan: plan || null,
            daily_limit: limit(daily),
            monthly_limit: limit(monthly),
            rate_limit: limit(rate),
          },
        }),
      ),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['principals'] });
      onClose();
    },
  });
  const number = (id: string, label: string, value: string, set: (v: string) => void) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={0}
        inputMode="numeric"
        placeholder="plan's"
        value={value}
        onChange={(event) => set(event.target.value)}
      />
    </div>
  );
  return (
    <Dialog
      title={`Edit “${principal.subject}”`}
      description="Blank limits take the plan's."
      onClose={onClose}
      onSubmit={() => save.mutate()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </Button>
        </>
      }
    >
      <div className="form-grid">
        <div className="field">
          <label htmlFor={ids.plan}>Plan</label>
          <select id={ids.plan} value={plan} onChange={(event) => setPlan(event.target.value)}>
            <option value="">the token's (or the OAuth default)</option>
            {plans.data?.plans.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        {number(ids.daily, 'Daily limit', daily, setDaily)}
        {number(ids.monthly, 'Monthly limit', monthly, setMonthly)}
        {number(ids.rate, 'Rate limit', rate, setRate)}
      </div>
      <ErrorNotice error={save.error} title="Not saved" />
    </Dialog>
  );
}

function PrincipalPage() {
  const { id } = useParams<{ id: string }>();
  const signed = useSigned();
  const queries = useQueryClient();
  const [editing, setEditing] = useState(false);
  const principal = useQuery({
    queryKey: ['principals', 'one', id],
    queryFn: () => ok(api.GET('/api/v1/auth/principals/{id}', { params: { path: { id } } })),
  });
  const usage = useQuery({
    queryKey: ['principals', 'usage', id],
    queryFn: () =>
      ok(
        api.GET('/api/v1/auth/principals/{id}/usage', {
          params: { path: { id }, query: { days: 90 } },
        }),
      ),
    refetchInterval: 15_000,
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      ok(
        api.PATCH('/api/v1/auth/principals/{id}', { params: { path: { id } }, body: { enabled } }),
      ),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['principals'] }),
  });
  const view = principal.data;
  const own = (value: number | null) =>
    value === null ? <span className="cell-sub">the plan's</span> : formatLimit(value);
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/principals">Principals</Link>}
        title={view ? view.subject : 'Principal'}
        description={view && <StatusBadge status={view.enabled ? 'active' : 'disabled'} />}
        actions={
          signed.canWrite &&
          view && (
            <>
              <Button onClick={() => setEditing(true)}>Edit</Button>
              <Button disabled={toggle.isPending} onClick={() => toggle.mutate(!view.enabled)}>
                {view.enabled ? 'Disable' : 'Enable'}
              </Button>
            </>
          )
        }
      />
      <ErrorNotice error={principal.error ?? toggle.error} />
      {toggle.isSuccess && (
        <Notice kind="success">
          {toggle.data.enabled
            ? 'The principal is enabled.'
            : 'The principal is disabled: its tokens get 401.'}
        </Notice>
      )}
      {!view ? (
        !principal.error && <Loading />
      ) : (
        <Card title="Settings" labelledBy="principal-settings">
          <dl className="facts">
            <dt>Id</dt>
            <dd className="mono">{view.id}</dd>
            <dt>Issuer</dt>
            <dd className="mono">{view.issuer}</dd>
            <dt>Client</dt>
            <dd className="mono">{view.client_id ?? '—'}</dd>
            <dt>Plan</dt>
            <dd>
              {view.plan}{' '}
              <span className="cell-sub">
                {view.operator_plan ? '(set by an operator)' : "(the token's, or the default)"}
              </span>
            </dd>
            <dt>Daily limit</dt>
            <dd>{own(view.daily_limit)}</dd>
            <dt>Monthly limit</dt>
            <dd>{own(view.monthly_limit)}</dd>
            <dt>Rate limit</dt>
            <dd>{own(view.rate_limit)}</dd>
            <dt>First seen</dt>
            <dd>
              <Time at={view.first_seen_at} />
            </dd>
            <dt>Last seen</dt>
            <dd>
              <Time at={view.last_seen_at} />
            </dd>
          </dl>
        </Card>
      )}
      <ErrorNotice error={usage.error} title="Usage could not be read" />
      <UsageSection usage={usage.data} error={usage.error} />
      {editing && view && <EditDialog principal={view} onClose={() => setEditing(false)} />}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/principals/:id',
  title: 'Principal',
  component: PrincipalPage,
};
