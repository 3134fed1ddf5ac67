import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import { formOfKey, KeyFields, limitsOf, type KeyFormState } from '../components/key-form';
import { SecretDialog } from '../components/secret';
import {
  Button,
  Card,
  ErrorNotice,
  formatLimit,
  Loading,
  Notice,
  PageHead,
  Scopes,
  StatusBadge,
  Time,
} from '../components/ui';
import { UsageSection } from '../components/usage';
import type { PageDefinition } from '../pages';

type Key = Schemas['ApiKeyView'];

const GRACES = [
  { seconds: 0, label: 'None: the old secret stops at once' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 604_800, label: '7 days' },
];

function EditDialog({ keyView, onClose }: { keyView: Key; onClose: () => void }) {
  const [form, setForm] = useState<KeyFormState>(formOfKey(keyView));
  const queries = useQueryClient();
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/api/v1/auth/api-keys/{id}', {
          params: { path: { id: keyView.id } },
          body: { name: form.name, scopes: form.scopes, plan: form.plan, ...limitsOf(form) },
        }),
      ),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['keys'] });
      onClose();
    },
  });
  return (
    <Dialog
      title={`Edit “${keyView.name}”`}
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
      <KeyFields form={form} onChange={setForm} creating={false} />
      <ErrorNotice error={save.error} title="Not saved" />
    </Dialog>
  );
}

function RotateDialog({
  keyView,
  onClose,
  onRotated,
}: {
  keyView: Key;
  onClose: () => void;
  onRotated: (secret: string) => void;
}) {
  const [grace, setGrace] = useState(86_400);
  const graceId = useId();
  const queries = useQueryClient();
  const rotate = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/auth/api-keys/{id}/rotate', {
          params: { path: { id: keyView.id } },
          body: { grace_seconds: grace },
        }),
      ),
    onSuccess: (rotated) => {
      void queries.invalidateQueries({ queryKey: ['keys'] });
      onRotated(rotated.key);
    },
  });
  return (
    <Dialog
      title={`Rotate “${keyView.name}”`}
      description="A new secret for the same key: its id, settings and usage stay. The old secret works until the grace ends."
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
          {GRACES.map((option) => (
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

function RevokeDialog({ keyView, onClose }: { keyView: Key; onClose: () => void }) {
  const queries = useQueryClient();
  const revoke = useMutation({
    mutationFn: () =>
      ok(api.DELETE('/api/v1/auth/api-keys/{id}', { params: { path: { id: keyView.id } } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['keys'] });
      onClose();
    },
  });
  return (
    <Dialog
      title={`Revoke “${keyView.name}”?`}
      description={`Every call with the key “${keyView.name}” (${keyView.prefix}…) is refused from now on. A revoked key cannot be enabled again.`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button kind="danger" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
            {revoke.isPending ? 'Revoking…' : `Revoke “${keyView.name}”`}
          </Button>
        </>
      }
    >
      <ErrorNotice error={revoke.error} title="Not revoked" />
    </Dialog>
  );
}

function Facts({ keyView }: { keyView: Key }) {
  const own = (value: number | null, unit: string) =>
    value === null ? <span className="cell-sub">the plan's</span> : `${formatLimit(value)} ${unit}`;
  return (
    <Card title="Settings" labelledBy="settings">
      <dl className="facts">
        <dt>Id</dt>
        <dd className="mono">{keyView.id}</dd>
        <dt>Prefix</dt>
        <dd className="mono">{keyView.prefix}…</dd>
        <dt>Scopes</dt>
        <dd>
          <Scopes scopes={keyView.scopes} />
        </dd>
        <dt>Plan</dt>
        <dd>{keyView.plan}</dd>
        <dt>Daily limit</dt>
        <dd>{own(keyView.daily_limit, 'credits')}</dd>
        <dt>Monthly limit</dt>
        <dd>{own(keyView.monthly_limit, 'credits')}</dd>
        <dt>Rate limit</dt>
        <dd>{own(keyView.rate_limit, 'calls a second')}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={keyView.created_at} />
        </dd>
        <dt>Last used</dt>
        <dd>
          <Time at={keyView.last_used_at} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time at={keyView.expires_at} empty="never" />
        </dd>
        {keyView.previous_key_expires_at && (
          <>
            <dt>Old secret until</dt>
            <dd>
              <Time at={keyView.previous_key_expires_at} />
            </dd>
          </>
        )}
        {keyView.revoked_at && (
          <>
            <dt>Revoked</dt>
            <dd>
              <Time at={keyView.revoked_at} />
            </dd>
          </>
        )}
      </dl>
    </Card>
  );
}

type Dialogs = 'edit' | 'rotate' | 'revoke' | null;

function KeyPage() {
  const { id } = useParams<{ id: string }>();
  const signed = useSigned();
  const queries = useQueryClient();
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const keyQuery = useQuery({
    queryKey: ['keys', 'one', id],
    queryFn: () => ok(api.GET('/api/v1/auth/api-keys/{id}', { params: { path: { id } } })),
  });
  const usage = useQuery({
    queryKey: ['keys', 'usage', id],
    queryFn: () =>
      ok(
        api.GET('/api/v1/auth/api-keys/{id}/usage', {
          params: { path: { id }, query: { days: 90 } },
        }),
      ),
    refetchInterval: 15_000,
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      ok(api.PATCH('/api/v1/auth/api-keys/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: (changed) => {
      setDone(
        changed.enabled
          ? 'The key is enabled again.'
          : 'The key is disabled: its calls get 401 until it is enabled.',
      );
      void queries.invalidateQueries({ queryKey: ['keys'] });
    },
  });

  const keyView = keyQuery.data;
  const revoked = keyView?.status === 'revoked';
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/keys">Keys</Link>}
        title={keyView ? keyView.name : 'Key'}
        description={keyView && <StatusBadge status={keyView.status} />}
        actions={
          signed.canWrite &&
          keyView &&
          !revoked && (
            <>
              <Button onClick={() => setDialog('edit')}>Edit</Button>
              <Button
                disabled={toggle.isPending}
                onClick={() => {
                  setDone(null);
                  toggle.mutate(!keyView.enabled);
                }}
              >
                {keyView.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button onClick={() => setDialog('rotate')}>Rotate</Button>
              <Button kind="danger" onClick={() => setDialog('revoke')}>
                Revoke
              </Button>
            </>
          )
        }
      />
      <ErrorNotice error={keyQuery.error ?? toggle.error} />
      {done && <Notice kind="success">{done}</Notice>}
      {!keyView ? (
        !keyQuery.error && <Loading label="Loading the key" />
      ) : (
        <Facts keyView={keyView} />
      )}
      <ErrorNotice error={usage.error} title="Usage could not be read" />
      <UsageSection usage={usage.data} error={usage.error} />
      {dialog === 'edit' && keyView && (
        <EditDialog keyView={keyView} onClose={() => setDialog(null)} />
      )}
      {dialog === 'rotate' && keyView && (
        <RotateDialog
          keyView={keyView}
          onClose={() => setDialog(null)}
          onRotated={(key) => {
            setDialog(null);
            setSecret(key);
          }}
        />
      )}
      {dialog === 'revoke' && keyView && (
        <RevokeDialog keyView={keyView} onClose={() => setDialog(null)} />
      )}
      {secret && keyView && (
        <SecretDialog
          title="Key rotated"
          name={keyView.name}
          secret={secret}
          onClose={() => setSecret(null)}
        />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/keys/:id',
  title: 'Key',
  component: KeyPage,
};
