import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import { SecretDialog } from '../components/secret';
import { Button, Card, ErrorNotice, Loading, Notice, PageHead, Time } from '../components/ui';
import { Deliveries } from '../components/webhook-deliveries';
import { EndpointStatus, EventList, SECRET_GRACES } from '../components/webhook-parts';
import type { PageDefinition } from '../pages';

type Endpoint = Schemas['WebhookEndpointView'];

function RotateDialog({
  endpoint,
  onClose,
  onRotated,
}: {
  endpoint: Endpoint;
  onClose: () => void;
  onRotated: (secret: string) => void;
}) {
  const [grace, setGrace] = useState(86_400);
  const graceId = useId();
  const queries = useQueryClient();
  const rotate = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/webhooks/{id}/rotate-secret', {
          params: { path: { id: endpoint.id } },
          body: { grace_seconds: grace },
        }),
      ),
    onSuccess: (rotated) => {
      void queries.invalidateQueries({ queryKey: ['webhooks'] });
      onRotated(rotated.secret);
    },
  });
  return (
    <Dialog
      title="Rotate the signing secret"
      description="A new secret signs every request from now on; the old one keeps signing beside it until the grace ends, so that receivers can take the new one."
      onClose={onClose}
      onSubmit={() => rotate.mutate()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={rotate.isPending}>
            {rotate.isPending ? 'Rotating…' : 'Rotate'}
          </Button>
        </>
      }
    >
      <div className="field">
        <label htmlFor={graceId}>Grace for the old secret</label>
        <select
          id={graceId}
          value={grace}
          onChange={(event) => setGrace(Number(event.target.value))}
        >
          {SECRET_GRACES.map((option) => (
            <option key={option.seconds} value={option.seconds}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <ErrorNotice error={rotate.error} title="Not rotated" />
    </Dialog>
  );
}

function DeleteDialog({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const remove = useMutation({
    mutationFn: () =>
      ok(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: endpoint.id } } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['webhooks'] });
      navigate('/webhooks');
    },
  });
  return (
    <Dialog
      title="Delete this endpoint?"
      description={`Nothing more is sent to ${endpoint.url}, and its deliveries are forgotten.`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button kind="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
            {remove.isPending ? 'Deleting…' : 'Delete endpoint'}
          </Button>
        </>
      }
    >
      <ErrorNotice error={remove.error} title="Not deleted" />
    </Dialog>
  );
}

function Facts({ endpoint }: { endpoint: Endpoint }) {
  return (
    <Card title="Settings" labelledBy="webhook-settings">
      <dl className="facts">
        <dt>Id</dt>
        <dd className="mono">{endpoint.id}</dd>
        <dt>URL</dt>
        <dd className="mono">{endpoint.url}</dd>
        <dt>Description</dt>
        <dd>{endpoint.description ?? <span className="cell-sub">none</span>}</dd>
        <dt>Status</dt>
        <dd>
          <EndpointStatus endpoint={endpoint} />
        </dd>
        <dt>Events</dt>
        <dd>
          <EventList events={endpoint.events} />
        </dd>
        {endpoint.failing_since && (
          <>
            <dt>Failing since</dt>
            <dd>
              <Time at={endpoint.failing_since} />
            </dd>
          </>
        )}
        {endpoint.previous_secret_expires_at && (
          <>
            <dt>Old secret until</dt>
            <dd>
              <Time at={endpoint.previous_secret_expires_at} />
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time at={endpoint.created_at} />
        </dd>
        <dt>Changed</dt>
        <dd>
          <Time at={endpoint.updated_at} />
        </dd>
      </dl>
    </Card>
  );
}

type Dialogs = 'rotate' | 'delete' | null;

function WebhookPage() {
  const { id } = useParams<{ id: string }>();
  const signed = useSigned();
  const queries = useQueryClient();
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const endpointQuery = useQuery({
    queryKey: ['webhooks', 'one', id],
    queryFn: () => ok(api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })),
    refetchInterval: 10_000,
  });
  const changed = () => void queries.invalidateQueries({ queryKey: ['webhooks'] });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      ok(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: (after) => {
      setDone(
        after.enabled
          ? 'The endpoint is enabled again: events are sent to it.'
          : 'The endpoint is disabled: nothing is sent to it until it is enabled.',
      );
      changed();
    },
  });
  const test = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })),
    onSuccess: (delivery) => {
      setDone(`A webhook.test event is on its way (delivery ${delivery.id}).`);
      changed();
    },
  });
  const endpoint = endpointQuery.data;
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/webhooks">Webhooks</Link>}
        title={endpoint ? (endpoint.description ?? endpoint.url) : 'Endpoint'}
        description={endpoint?.description ? endpoint.url : undefined}
        actions={
          signed.canWrite &&
          endpoint && (
            <>
              <Button
                disabled={test.isPending || !endpoint.enabled}
                title={endpoint.enabled ? undefined : 'A disabled endpoint gets no test event.'}
                onClick={() => {
                  setDone(null);
                  test.mutate();
                }}
              >
                Send a test
              </Button>
              <Button onClick={() => setDialog('rotate')}>Rotate secret</Button>
              <Button
                disabled={toggle.isPending}
                onClick={() => {
                  setDone(null);
                  toggle.mutate(!endpoint.enabled);
                }}
              >
                {endpoint.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button kind="danger" onClick={() => setDialog('delete')}>
                Delete
              </Button>
            </>
          )
        }
      />
      <ErrorNotice error={endpointQuery.error ?? toggle.error ?? test.error} />
      {done && <Notice kind="success">{done}</Notice>}
      {!endpoint ? (
        !endpointQuery.error && <Loading label="Loading the endpoint" />
      ) : (
        <Facts endpoint={endpoint} />
      )}
      {endpoint && <Deliveries endpointId={endpoint.id} canRetry={signed.canWrite} />}
      {dialog === 'rotate' && endpoint && (
        <RotateDialog
          endpoint={endpoint}
          onClose={() => setDialog(null)}
          onRotated={(rotated) => {
            setDialog(null);
            setSecret(rotated);
          }}
        />
      )}
      {dialog === 'delete' && endpoint && (
        <DeleteDialog endpoint={endpoint} onClose={() => setDialog(null)} />
      )}
      {secret && endpoint && (
        <SecretDialog
          title="Secret rotated"
          name={endpoint.url}
          secret={secret}
          label="The endpoint's signing secret"
          onClose={() => setSecret(null)}
        />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/webhooks/:id',
  title: 'Webhook endpoint',
  component: WebhookPage,
};
