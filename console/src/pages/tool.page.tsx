import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ApiFailure, type Schemas } from '../api/client';
import { useToolDetails } from '../api/queries';
import { type Signed, useSigned } from '../auth';
import { SchemaForm } from '../components/schema-form';
import {
  Card,
  ErrorNotice,
  formatNumber,
  Loading,
  Notice,
  PageHead,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';
import { mayCall } from '../scopes';
import { session } from '../session';

type Tool = Schemas['ToolDetailsView'];

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: unknown;
}

/** Calls a tool with the signed-in key, and keeps everything it answered. */
async function callTool(tool: Tool, body: Record<string, unknown>): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(tool.path, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${session.key() ?? ''}`,
      },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiFailure(0, `The service cannot be reached (${(error as Error).message}).`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // Not JSON: shown as it came.
  }
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers.entries()].sort(([a], [b]) => a.localeCompare(b)),
    body: parsed,
  };
}

/** Why the console will not call a tool for this key, or null when it will. */
function refusal(tool: Tool, signed: Signed): string | null {
  if (!mayCall(signed.scopes, tool.name)) {
    return `This key does not hold ${tool.scope} (or services:execute): it cannot call this tool.`;
  }
  if (!tool.annotations.readOnlyHint && !signed.canWrite) {
    return 'This tool may change the service (it is not marked read-only): the console calls it only for a key that holds admin:write.';
  }
  return null;
}

/** Headers every answer carries (helmet's, the connection's): shown on demand. */
const OTHER_HEADERS = new Set([
  'connection',
  'content-length',
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'date',
  'keep-alive',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

function HeaderTable({ headers }: { headers: [string, string][] }) {
  return (
    <TableWrap label="Answer headers">
      <table className="headers-table">
        <tbody>
          {headers.map(([name, value]) => (
            <tr key={name}>
              <td className="mono">{name}</td>
              <td className="mono wrap">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function AnswerView({ answer }: { answer: Answer }) {
  const ok = answer.status < 400;
  const detail = (answer.body as { detail?: unknown } | null)?.detail;
  return (
    <div className="stack" aria-live="polite">
      {ok ? (
        <Notice kind="success">
          <strong>
            {answer.status} {answer.statusText}
          </strong>
        </Notice>
      ) : (
        <ErrorNotice
          error={
            new ApiFailure(
              answer.status,
              typeof detail === 'string' ? detail : JSON.stringify(detail ?? answer.body),
            )
          }
        />
      )}
      <div className="grid two">
        <div className="stack">
          <h3>Body</h3>
          <pre className="json" tabIndex={0} aria-label="Answer body">
            {JSON.stringify(answer.body, null, 2)}
          </pre>
        </div>
        <div className="stack">
          <h3>Headers</h3>
          <HeaderTable headers={answer.headers.filter(([name]) => !OTHER_HEADERS.has(name))} />
          <details className="data-table">
            <summary>
              The other {answer.headers.filter(([name]) => OTHER_HEADERS.has(name)).length} headers
              (security, transport)
            </summary>
            <HeaderTable headers={answer.headers.filter(([name]) => OTHER_HEADERS.has(name))} />
          </details>
        </div>
      </div>
    </div>
  );
}

function TryIt({ tool, signed }: { tool: Tool; signed: Signed }) {
  const call = useMutation({ mutationFn: (body: Record<string, unknown>) => callTool(tool, body) });
  const refused = refusal(tool, signed);
  return (
    <div className="stack">
      {refused ? (
        <Notice>{refused}</Notice>
      ) : (
        <SchemaForm
          schema={tool.input_schema}
          submitLabel={`Call ${tool.name}`}
          busy={call.isPending}
          onSubmit={(body) => call.mutate(body)}
        />
      )}
      <ErrorNotice error={call.error} />
      {call.data && <AnswerView answer={call.data} />}
    </div>
  );
}

type Tab = 'try' | 'input' | 'output';

function ToolDetails({ tool, signed }: { tool: Tool; signed: Signed }) {
  const showForm = signed.canCallTools;
  const [tab, setTab] = useState<Tab>(showForm ? 'try' : 'input');
  const base = useId();
  const tabs: [Tab, string][] = [
    ...(showForm ? ([['try', 'Try it']] as [Tab, string][]) : []),
    ['input', 'Input schema'],
    ['output', 'Output schema'],
  ];
  const hints = tool.annotations;
  return (
    <Card
      title={<span className="mono">{tool.name}</span>}
      description={tool.path}
      labelledBy={`${base}-title`}
      actions={
        <span className="chips">
          {hints.readOnlyHint ? (
            <span className="badge good plain">read-only</span>
          ) : (
            <span className="badge warn plain">changes state</span>
          )}
          {!hints.readOnlyHint && hints.destructiveHint && (
            <span className="badge bad plain">destructive</span>
          )}
          {hints.openWorldHint && <span className="badge plain">open world</span>}
        </span>
      }
      flush
    >
      <div className="card-body">
        <dl className="facts">
          <dt>Cost</dt>
          <dd>
            {Object.entries(tool.cost_by_plan).map(([plan, cost]) => (
              <span key={plan} className="chip" style={{ marginRight: 6 }}>
                {plan}: {formatNumber(cost)} credit{cost === 1 ? '' : 's'}
              </span>
            ))}
          </dd>
          <dt>Deadline</dt>
          <dd>{formatNumber(tool.timeout_ms)} ms</dd>
          <dt>Capacity</dt>
          <dd>
            {formatNumber(tool.concurrency)} at once, {formatNumber(tool.queue)} waiting (per
            instance)
          </dd>
          <dt>Scope</dt>
          <dd className="mono">{tool.scope}</dd>
        </dl>
      </div>
      <div className="tabs" role="tablist" aria-label={`${tool.name}: views`}>
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`${base}-${id}-tab`}
            aria-selected={tab === id}
            aria-controls={`${base}-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => setTab(id)}
            onKeyDown={(event) => {
              if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
              const at = tabs.findIndex(([t]) => t === tab);
              const next =
                tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length][0];
              setTab(next);
              document.getElementById(`${base}-${next}-tab`)?.focus();
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div
        className="card-body"
        role="tabpanel"
        id={`${base}-${tab}`}
        aria-labelledby={`${base}-${tab}-tab`}
      >
        {tab === 'try' && <TryIt tool={tool} signed={signed} />}
        {tab === 'input' && (
          <pre className="json" tabIndex={0}>
            {JSON.stringify(tool.input_schema, null, 2)}
          </pre>
        )}
        {tab === 'output' && (
          <pre className="json" tabIndex={0}>
            {JSON.stringify(tool.output_schema, null, 2)}
          </pre>
        )}
      </div>
    </Card>
  );
}

function ToolPage() {
  const { name } = useParams<{ name: string }>();
  const signed = useSigned();
  const tools = useToolDetails();
  const tool = tools.data?.tools.find((t) => t.name === name);
  return (
    <div className="stack">
      <PageHead
        crumbs={<Link href="/tools">Tools</Link>}
        title={tool ? tool.title : name}
        description={tool?.description}
      />
      {!signed.canCallTools && (
        <Notice>
          This key holds no tool scope: the tool is shown, not called. Sign in with a key that also
          holds services:execute (or the tool's own scope) to call it from here.
        </Notice>
      )}
      <ErrorNotice error={tools.error} />
      {tools.isPending && <Loading label="Loading the tool" />}
      {tools.data && !tool && <ErrorNotice error={new Error(`No tool is named ${name}.`)} />}
      {tool && <ToolDetails tool={tool} signed={signed} />}
    </div>
  );
}

export const page: PageDefinition = {
  path: '/tools/:name',
  title: 'Tool',
  component: ToolPage,
};
