import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, ok } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import { SecretDialog } from '../components/secret';
import {
  Button,
  Empty,
  ErrorNotice,
  LoadingRows,
  PageHead,
  TableWrap,
  Time,
} from '../components/ui';
import { EndpointStatus, EventList } from '../components/webhook-parts';
import type { PageDefinition } from '../pages';

interface Form {
  url: string;
  description: string;
  every: boolean;
  events: string[];
}

function problemsOf(form: Form): { url?: string; events?: string } {
  const problems: { url?: string; events?: string } = {};
  const url = form.url.trim();
  if (!url) problems.url = 'Required: where events are sent.';
  else if (!/^https?:\/\//i.test(url)) problems.url = 'A URL: https://…';
  if (!form.every && form.events.length === 0) problems.events = 'Choose at least one event.';
  return problems;
}

function CreateDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (created: { id: string; url: string; secret: string }) => void;
}) {
  const [form, setForm] = useState<Form>({ url: '', description: '', every: true, events: [] });
  const [checked, setChecked] = useState(false);
  const urlId = useId();
  const descriptionId = useId();
  const queries = useQueryClient();
  const types = useQuery({
    queryKey: ['webhooks', 'event-types'],
    queryFn: () => ok(api.GET('/api/v1/webhooks/event-types')),
    staleTime: 300_000,
  });
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/webhooks', {
          body: {
            url: form.url.trim(),
            events: form.every ? ['*'] : form.events,
            ...(form.description.trim() ? { description: form.description.trim() } : {}),
          },
        }),
      ),
    onSuccess: (created) => {
      void queries.invalidateQueries({ queryKey: ['webhooks'] });
      onCreated({ id: created.id, url: created.url, secret: created.secret });
    },
  });
  const problems = checked ? problemsOf(form) : {};
  const set = (changes: Partial<Form>) => setForm((all) => ({ ...all, ...changes }));
  const toggle = (type: string) =>
    set({
      events: form.events.includes(type)
        ? form.events.filter((t) => t !== type)
        : [...form.events, type],
    });
  return (
    <Dialog
      title="Add an endpoint"
      description="Events are POSTed to it, signed with a secret shown once, when it is made."
      onClose={onClose}
      onSubmit={() => {
        setChecked(true);
        if (Object.keys(problemsOf(form)).length === 0) create.mutate();
      }}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create endpoint'}
          </Button>
        </>
      }
    >
      <div className="field">
        <label htmlFor={urlId}>URL</label>
        <input
          id={urlId}
          type="text"
          inputMode="url"
          autoComplete="off"
          placeholder="https://hooks.example.com/tis"
          value={form.url}
          aria-invalid={!!problems.url}
          aria-describedby={`${urlId}-hint`}
          onChange={(event) => set({ url: event.target.value })}
        />
        <span className={problems.url ? 'hint problem' : 'hint'} id={`${urlId}-hint`}>
          {problems.url ?? 'https:// to a public address (private ones as the service allows).'}
        </span>
      </div>
      <div className="field">
        <label htmlFor={descriptionId}>Description</label>
        <input
          id={descriptionId}
          type="text"
          maxLength={500}
          value={form.description}
          onChange={(event) => set({ description: event.target.value })}
        />
      </div>
      <fieldset aria-describedby={problems.events ? `${urlId}-events` : undefined}>
        <legend>Events</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={form.every}
            onChange={(event) => set({ every: event.target.checked })}
          />
          Every event, those added later too (*)
        </label>
        {!form.every && (
          <div className="checks" style={{ marginTop: 10 }}>
            {types.data?.event_types.map((type) => (
              <label className="check mono" key={type.type} title={type.description}>
                <input
                  type="checkbox"
                  checked={form.events.includes(type.type)}
                  onChange={() => toggle(type.type)}
                />
                {type.type}
              </label>
            ))}
          </div>
        )}
        {problems.events && (
          <span className="hint problem" id={`${urlId}-events`}>
            {problems.events}
          </span>
        )}
      </fieldset>
      <ErrorNotice error={types.error} title="The event types could not be read" />
      <ErrorNotice error={create.error} title="The endpoint was not created" />
    </Dialog>
  );
}

function Webhooks() {
  const signed = useSigned();
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ id: string; url: string; secret: string } | null>(null);
  const list = useQuery({
    queryKey: ['webhooks', 'list'],
    queryFn: () => ok(api.GET('/api/v1/webhooks')),
    refetchInterval: 10_000,
  });
  const endpoints = list.data?.webhooks;
  return (
    <div className="stack">
      <PageHead
        title="Webhooks"
        description="Endpoints the service POSTs signed events to, and how their deliveries fare."
        actions={
          signed.canWrite && (
            <Button kind="primary" onClick={() => setCreating(true)}>
              Add endpoint
            </Button>
          )
        }
      />
      <section className="card" aria-label="Webhook endpoints">
        <ErrorNotice error={list.error} />
        <TableWrap label="Webhook endpoints">
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Events</th>
                <th scope="col">Failing since</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.isPending && <LoadingRows columns={5} />}
              {endpoints?.map((endpoint) => (
                <tr key={endpoint.id} data-endpoint={endpoint.id}>
                  <td>
                    <Link href={`/webhooks/${endpoint.id}`} className="cell-title mono">
                      {endpoint.url}
                    </Link>
                    <div className="cell-sub">
                      {endpoint.description ?? <span className="mono">{endpoint.id}</span>}
                    </div>
                  </td>
                  <td>
                    <EndpointStatus endpoint={endpoint} />
                  </td>
                  <td className="wrap">
                    <EventList events={endpoint.events} />
                  </td>
                  <td>
                    <Time at={endpoint.failing_since} empty="—" />
                  </td>
                  <td>
                    <Time at={endpoint.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {endpoints && endpoints.length === 0 && (
            <Empty>No endpoint yet: events are sent to none.</Empty>
          )}
        </TableWrap>
      </section>
      {creating && (
        <CreateDialog
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret(created);
          }}
        />
      )}
      {secret && (
        <SecretDialog
          title="Endpoint created"
          name={secret.url}
          secret={secret.secret}
          label="The endpoint's signing secret"
          onClose={() => {
            const id = secret.id;
            setSecret(null);
            navigate(`/webhooks/${id}`);
          }}
        />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/webhooks',
  title: 'Webhooks',
  nav: { label: 'Webhooks', order: 47, icon: 'webhook' },
  component: Webhooks,
};
