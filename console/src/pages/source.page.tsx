import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, ok, type Schemas } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import {
  IDLE_MS,
  kindOf,
  listOf,
  numberProblem,
  ORIGINS,
  SOURCE_PREFIX,
  SourceState,
  STARTING_MS,
  TextField,
  whereOf,
} from '../components/source-parts';
import {
  Button,
  Card,
  Empty,
  ErrorNotice,
  formatNumber,
  Loading,
  Notice,
  PageHead,
  TableWrap,
  Time,
} from '../components/ui';
import type { PageDefinition } from '../pages';

type Source = Schemas['SourceView'];

interface Changes {
  cost: string;
  prefix: string;
  include: string;
  exclude: string;
  timeout: string;
}

type Problems = Partial<Record<keyof Changes | 'none', string>>;

function problemsOf(changes: Changes): Problems {
  const problems: Problems = {
    cost: numberProblem(changes.cost, 0),
    timeout: numberProblem(changes.timeout, 100, 3_600_000),
  };
  if (changes.prefix.trim() && !SOURCE_PREFIX.test(changes.prefix.trim())) {
    problems.prefix = 'Letters, digits, _ . and -, at most 32.';
  }
  if (Object.keys(changesOf(changes)).length === 0) {
    problems.none = 'Nothing to change: fill in at least one field.';
  }
  return Object.fromEntries(Object.entries(problems).filter(([, problem]) => problem));
}

/** The change a form asks for: each field filled in, and no other. */
function changesOf(changes: Changes) {
  const text = (value: string) => value.trim();
  return {
    ...(text(changes.cost) ? { cost: Number(changes.cost) } : {}),
    ...(text(changes.prefix) ? { prefix: text(changes.prefix) } : {}),
    ...(text(changes.include) ? { include: listOf(changes.include) } : {}),
    ...(text(changes.exclude) ? { exclude: listOf(changes.exclude) } : {}),
    ...(text(changes.timeout) ? { timeout_ms: Number(changes.timeout) } : {}),
  };
}

function EditDialog({ source, onClose }: { source: Source; onClose: () => void }) {
  const [changes, setChanges] = useState<Changes>({
    cost: '',
    prefix: '',
    include: '',
    exclude: '',
    timeout: '',
  });
  const [checked, setChecked] = useState(false);
  const queries = useQueryClient();
  const edit = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/api/v1/sources/{name}', {
          params: { path: { name: source.name } },
          body: changesOf(changes),
        }),
      ),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['sources'] });
      onClose();
    },
  });
  const problems = checked ? problemsOf(changes) : {};
  const set = (change: Partial<Changes>) => setChanges((all) => ({ ...all, ...change }));
  return (
    <Dialog
      title="Edit the source"
      description="Only the fields filled in are sent; the others keep their values, the token too. The upstream is read again."
      onClose={onClose}
      onSubmit={() => {
        setChecked(true);
        if (Object.keys(problemsOf(changes)).length === 0) edit.mutate();
      }}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={edit.isPending}>
            {edit.isPending ? 'Saving…' : 'Save changes'}
          </Button>
        </>
      }
    >
      <div className="form-grid">
        <TextField
          label="Cost"
          hint="Credits a call of each of its tools."
          type="number"
          inputMode="numeric"
          min={0}
          value={changes.cost}
          problem={problems.cost}
          onChange={(cost) => set({ cost })}
        />
        <TextField
          label="Prefix"
          hint={`Its tools' names begin with it; now ${source.prefix}.`}
          placeholder={source.prefix}
          maxLength={32}
          value={changes.prefix}
          problem={problems.prefix}
          onChange={(prefix) => set({ prefix })}
        />
      </div>
      <TextField
        label="Include"
        hint="Upstream tool names or globs served, with commas between them."
        placeholder="echo, get-*"
        value={changes.include}
        onChange={(include) => set({ include })}
      />
      <TextField
        label="Exclude"
        hint="Upstream tool names or globs left out."
        placeholder="debug-*"
        value={changes.exclude}
        onChange={(exclude) => set({ exclude })}
      />
      <TextField
        label="Timeout (ms)"
        hint="A call's deadline, 100 to 3,600,000 ms."
        type="number"
        inputMode="numeric"
        min={100}
        max={3_600_000}
        value={changes.timeout}
        problem={problems.timeout}
        onChange={(timeout) => set({ timeout })}
      />
      {problems.none && <p className="hint problem">{problems.none}</p>}
      <ErrorNotice error={edit.error} title="The source was not changed" />
    </Dialog>
  );
}

function RemoveDialog({ source, onClose }: { source: Source; onClose: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const remove = useMutation({
    mutationFn: () =>
      ok(api.DELETE('/api/v1/sources/{name}', { params: { path: { name: source.name } } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['sources'] });
      void queries.invalidateQueries({ queryKey: ['admin', 'tools'] });
      navigate('/sources');
    },
  });
  return (
    <Dialog
      title="Remove this source?"
      description={`Its ${source.tools.length === 1 ? 'tool is' : `${source.tools.length} tools are`} gone at once: a call to them is refused. ${whereOf(source)} itself is not touched.`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button kind="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
            {remove.isPending ? 'Removing…' : 'Remove source'}
          </Button>
        </>
      }
    >
      <ErrorNotice error={remove.error} title="Not removed" />
    </Dialog>
  );
}

function Facts({ source }: { source: Source }) {
  return (
    <Card title="Settings" labelledBy="source-settings">
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{kindOf(source)}</dd>
        <dt>{source.command !== undefined ? 'Command' : 'URL'}</dt>
        <dd className="mono">{whereOf(source)}</dd>
        <dt>Prefix</dt>
        <dd className="mono">{source.prefix}</dd>
        <dt>State</dt>
        <dd>
          <SourceState source={source} />
        </dd>
        <dt>Defined in</dt>
        <dd>{ORIGINS[source.origin]}</dd>
        <dt>Refreshed</dt>
        <dd>
          <Time at={source.refreshed_at} />
        </dd>
        <dt>Last error</dt>
        <dd data-testid="last-error">
          {source.last_error ?? <span className="cell-sub">none</span>}
        </dd>
      </dl>
    </Card>
  );
}

function Tools({ source }: { source: Source }) {
  return (
    <Card
      title="Tools"
      description="Each is a tool of the service: its own page, scopes, credits and ledger entries."
      labelledBy="source-tools"
      flush
    >
      <TableWrap label="Tools of the source">
        <table>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Upstream name</th>
              <th scope="col" className="num">
                Cost
              </th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {source.tools.map((tool) => (
              <tr key={tool.name} data-tool={tool.name}>
                <td>
                  <Link href={`/tools/${tool.name}`} className="cell-title mono">
                    {tool.name}
                  </Link>
                </td>
                <td className="mono">{tool.upstream_name}</td>
                <td className="num">{formatNumber(tool.cost)}</td>
                <td className="wrap">{tool.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {source.tools.length === 0 && (
          <Empty>
            {source.state === 'starting'
              ? 'Its tools are listed once the upstream answers.'
              : 'No tool is served: the last error says why.'}
          </Empty>
        )}
      </TableWrap>
    </Card>
  );
}

type Dialogs = 'edit' | 'remove' | null;

function SourcePage() {
  const { name } = useParams<{ name: string }>();
  const signed = useSigned();
  const queries = useQueryClient();
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [done, setDone] = useState<string | null>(null);
  const sourceQuery = useQuery({
    queryKey: ['sources', 'one', name],
    queryFn: () => ok(api.GET('/api/v1/sources/{name}', { params: { path: { name } } })),
    refetchInterval: (query) => (query.state.data?.state === 'starting' ? STARTING_MS : IDLE_MS),
  });
  const refresh = useMutation({
    mutationFn: () =>
      ok(api.POST('/api/v1/sources/{name}/refresh', { params: { path: { name } } })),
    onSuccess: (after) => {
      setDone(
        `Listed again: ${after.tools.length === 1 ? '1 tool' : `${after.tools.length} tools`}.`,
      );
      void queries.invalidateQueries({ queryKey: ['sources'] });
    },
  });
  const source = sourceQuery.data;
  // The tools' own pages read the tools once in a while: a change of this source's is shown there.
  const tools = source?.tools.map((tool) => `${tool.name}:${tool.cost}`).join(',');
  useEffect(() => {
    if (tools !== undefined) void queries.invalidateQueries({ queryKey: ['admin', 'tools'] });
  }, [tools, queries]);
  const editable = signed.canWrite && source?.origin === 'api';
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/sources">Sources</Link>}
        title={name}
        description={source && `${kindOf(source)} · ${whereOf(source)}`}
        actions={
          signed.canWrite &&
          source && (
            <>
              <Button
                disabled={refresh.isPending}
                onClick={() => {
                  setDone(null);
                  refresh.mutate();
                }}
              >
                {refresh.isPending ? 'Refreshing…' : 'Refresh'}
              </Button>
              {editable && (
                <>
                  <Button onClick={() => setDialog('edit')}>Edit</Button>
                  <Button kind="danger" onClick={() => setDialog('remove')}>
                    Remove
                  </Button>
                </>
              )}
            </>
          )
        }
      />
      <ErrorNotice error={sourceQuery.error ?? refresh.error} />
      {done && <Notice kind="success">{done}</Notice>}
      {source?.origin === 'config' && (
        <Notice>
          This source is defined in CONFIG_FILE: it is changed or removed there, not here.
        </Notice>
      )}
      {!source ? (
        !sourceQuery.error && <Loading label="Loading the source" />
      ) : (
        <>
          <Facts source={source} />
          <Tools source={source} />
        </>
      )}
      {dialog === 'edit' && source && (
        <EditDialog source={source} onClose={() => setDialog(null)} />
      )}
      {dialog === 'remove' && source && (
        <RemoveDialog source={source} onClose={() => setDialog(null)} />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/sources/:name',
  title: 'Source',
  component: SourcePage,
};
