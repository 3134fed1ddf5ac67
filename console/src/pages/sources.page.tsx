import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, ok } from '../api/client';
import { useSigned } from '../auth';
import { Dialog } from '../components/dialog';
import {
  IDLE_MS,
  kindOf,
  numberProblem,
  ORIGINS,
  shortened,
  SOURCE_NAME,
  SOURCE_PREFIX,
  SourceState,
  STARTING_MS,
  TextField,
  urlProblem,
  whereOf,
} from '../components/source-parts';
import {
  Button,
  Empty,
  ErrorNotice,
  formatNumber,
  LoadingRows,
  PageHead,
  TableWrap,
  Time,
} from '../components/ui';
import type { PageDefinition } from '../pages';

interface Form {
  name: string;
  kind: 'mcp' | 'openapi';
  url: string;
  document: string;
  baseUrl: string;
  prefix: string;
  cost: string;
  token: string;
}

type Problems = Partial<Record<keyof Form, string>>;

function problemsOf(form: Form): Problems {
  const problems: Problems = {};
  const name = form.name.trim();
  if (!name) problems.name = 'Required: the source is named by it.';
  else if (!SOURCE_NAME.test(name)) {
    problems.name = 'Lower-case letters, digits and -, a letter first, at most 32.';
  }
  if (form.kind === 'mcp') {
    problems.url = urlProblem(form.url, "the server's Streamable HTTP URL");
  } else {
    problems.document = urlProblem(form.document, "the document's URL");
    problems.baseUrl = urlProblem(form.baseUrl, 'where its operations are called');
  }
  if (form.prefix.trim() && !SOURCE_PREFIX.test(form.prefix.trim())) {
    problems.prefix = 'Letters, digits, _ . and -, at most 32.';
  }
  problems.cost = numberProblem(form.cost, 0);
  return Object.fromEntries(Object.entries(problems).filter(([, problem]) => problem));
}

/** The request a form makes: only what was typed, the token as the source's bearer credential. */
function bodyOf(form: Form) {
  const upstream =
    form.kind === 'mcp'
      ? { url: form.url.trim() }
      : { document: form.document.trim(), base_url: form.baseUrl.trim() };
  return {
    name: form.name.trim(),
    kind: form.kind,
    ...upstream,
    ...(form.prefix.trim() ? { prefix: form.prefix.trim() } : {}),
    ...(form.cost.trim() ? { cost: Number(form.cost) } : {}),
    ...(form.token ? { auth: { type: 'bearer' as const, token: form.token } } : {}),
  };
}

function AddDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (name: string) => void }) {
  const [form, setForm] = useState<Form>({
    name: '',
    kind: 'mcp',
    url: '',
    document: '',
    baseUrl: '',
    prefix: '',
    cost: '',
    token: '',
  });
  const [checked, setChecked] = useState(false);
  const kindId = useId();
  const queries = useQueryClient();
  const add = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/sources', { body: bodyOf(form) })),
    onSuccess: (created) => {
      void queries.invalidateQueries({ queryKey: ['sources'] });
      onAdded(created.name);
    },
  });
  const problems = checked ? problemsOf(form) : {};
  const set = (changes: Partial<Form>) => setForm((all) => ({ ...all, ...changes }));
  return (
    <Dialog
      title="Add a source"
      description="An MCP server over HTTP or an OpenAPI document: its tools are served as the service's own, charged and governed like them."
      onClose={onClose}
      onSubmit={() => {
        setChecked(true);
        if (Object.keys(problemsOf(form)).length === 0) add.mutate();
      }}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button kind="primary" type="submit" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add source'}
          </Button>
        </>
      }
    >
      <TextField
        label="Name"
        hint="Lower-case: its tools are <name>_<tool> unless a prefix says otherwise."
        placeholder="everything"
        maxLength={32}
        value={form.name}
        problem={problems.name}
        onChange={(name) => set({ name })}
      />
      <div className="field">
        <label htmlFor={kindId}>Kind</label>
        <select
          id={kindId}
          value={form.kind}
          onChange={(event) => set({ kind: event.target.value as Form['kind'] })}
        >
          <option value="mcp">MCP server over HTTP</option>
          <option value="openapi">OpenAPI document</option>
        </select>
      </div>
      {form.kind === 'mcp' ? (
        <TextField
          label="URL"
          hint="Its Streamable HTTP endpoint: a public address (private ones as the service allows)."
          placeholder="https://mcp.example.com/mcp"
          inputMode="url"
          value={form.url}
          problem={problems.url}
          onChange={(url) => set({ url })}
        />
      ) : (
        <>
          <TextField
            label="Document URL"
            hint="The OpenAPI 3.0 or 3.1 document, JSON or YAML."
            placeholder="https://inventory.example.com/openapi.json"
            inputMode="url"
            value={form.document}
            problem={problems.document}
            onChange={(document) => set({ document })}
          />
          <TextField
            label="Base URL"
            hint="Where its operations are called."
            placeholder="https://inventory.example.com"
            inputMode="url"
            value={form.baseUrl}
            problem={problems.baseUrl}
            onChange={(baseUrl) => set({ baseUrl })}
          />
        </>
      )}
      <div className="form-grid">
        <TextField
          label="Prefix"
          hint="Optional; the name by default."
          maxLength={32}
          value={form.prefix}
          problem={problems.prefix}
          onChange={(prefix) => set({ prefix })}
        />
        <TextField
          label="Cost"
          hint="Optional: credits a call (1 by default)."
          type="number"
          inputMode="numeric"
          min={0}
          value={form.cost}
          problem={problems.cost}
          onChange={(cost) => set({ cost })}
        />
      </div>
      <TextField
        label="Bearer token"
        hint="Optional: sent to the upstream as Authorization: Bearer. Kept secret, never shown again."
        type="password"
        autoComplete="new-password"
        maxLength={4096}
        value={form.token}
        onChange={(token) => set({ token })}
      />
      <ErrorNotice error={add.error} title="The source was not added" />
    </Dialog>
  );
}

function Sources() {
  const signed = useSigned();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  const list = useQuery({
    queryKey: ['sources', 'list'],
    queryFn: () => ok(api.GET('/api/v1/sources')),
    refetchInterval: (query) =>
      query.state.data?.sources.some((source) => source.state === 'starting')
        ? STARTING_MS
        : IDLE_MS,
  });
  const sources = list.data?.sources;
  return (
    <div className="stack">
      <PageHead
        title="Sources"
        description="Upstream MCP servers and OpenAPI services whose tools the service serves as its own."
        actions={
          signed.canWrite && (
            <Button kind="primary" onClick={() => setAdding(true)}>
              Add source
            </Button>
          )
        }
      />
      <section className="card" aria-label="Sources">
        <ErrorNotice error={list.error} />
        <TableWrap label="Sources">
          <table>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">State</th>
                <th scope="col" className="num">
                  Tools
                </th>
                <th scope="col">Defined in</th>
                <th scope="col">Refreshed</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {list.isPending && <LoadingRows columns={6} />}
              {sources?.map((source) => (
                <tr key={source.name} data-source={source.name}>
                  <td className="wrap">
                    <Link href={`/sources/${source.name}`} className="cell-title mono">
                      {source.name}
                    </Link>
                    <div className="cell-sub">{kindOf(source)}</div>
                    <div className="cell-sub mono">{whereOf(source)}</div>
                  </td>
                  <td>
                    <SourceState source={source} />
                  </td>
                  <td className="num">{formatNumber(source.tools.length)}</td>
                  <td>{ORIGINS[source.origin]}</td>
                  <td>
                    <Time at={source.refreshed_at} />
                  </td>
                  <td className="wrap">
                    {source.last_error ? (
                      <span className="cell-sub">{shortened(source.last_error)}</span>
                    ) : (
                      <span className="cell-sub">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {sources && sources.length === 0 && (
            <Empty>No source yet: only the service's own tools are served.</Empty>
          )}
        </TableWrap>
      </section>
      {adding && (
        <AddDialog
          onClose={() => setAdding(false)}
          onAdded={(name) => {
            setAdding(false);
            navigate(`/sources/${name}`);
          }}
        />
      )}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/sources',
  title: 'Sources',
  nav: { label: 'Sources', order: 48, icon: 'source' },
  component: Sources,
};
