import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ApiFailure, detailText, issuesOf, issueText, type Schemas } from '../api/client';
import { useToolDetails } from '../api/queries';
import { type Signed, useSigned } from '../auth';
import { type JsonSchema, SchemaForm } from '../components/schema-form';
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

/**
 * A 400's problems by field of the form (`loc` `["body", <field>, …]`), and the others (the body
 * as a whole, a field the form does not have) in words.
 */
function problemsOf(
  answer: Answer,
  schema: JsonSchema,
): { byField: Record<string, string>; others: string[] } {
  const byField: Record<string, string> = {};
  const others: string[] = [];
  if (answer.status !== 400) return { byField, others };
  for (const issue of issuesOf(answer.body)) {
    const [where, field] = issue.loc ?? [];
    if (where === 'body' && typeof field === 'string' && schema.properties?.[field]) {
      const rest = (issue.loc ?? []).slice(2).join('.');
      const text = rest ? `${rest}: ${issue.msg ?? ''}` : (issue.msg ?? '');
      byField[field] = byField[field] ? `${byField[field]}; ${text}` : text;
    } else others.push(issueText(issue));
  }
  return { byField, others };
}

/** A refusal in words: the `detail` sentence; for a 400, what the fields do not say. */
function refusalText(answer: Answer, schema: JsonSchema): string {
  if (!issuesOf(answer.body).length) {
    return typeof answer.body === 'string' && answer.body
      ? answer.body
      : detailText(answer.body, answer);
  }
  const { byField, others } = problemsOf(answer, schema);
  const fields = Object.keys(byField);
  return [
    ...(fields.length
      ? [
          `The input was refused: see ${fields.length === 1 ? 'the field' : 'the fields'} ${fields.join(', ')}.`,
        ]
      : []),
    ...others,
  ].join(' ');
}

function AnswerView({ answer, schema }: { answer: Answer; schema: JsonSchema }) {
  const ok = answer.status < 400;
  return (
    <div className="stack" aria-live="polite">
      {ok ? (
        <Notice kind="success">
          <strong>
            {answer.status} {answer.statusText}
          </strong>
        </Notice>
      ) : (
        <ErrorNotice error={new ApiFailure(answer.status, refusalText(answer, schema))} />
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
          problems={call.data && problemsOf(call.data, tool.input_schema).byField}
          onSubmit={(body) => call.mutate(body)}
        />
      )}
      <ErrorNotice error={call.error} />
      {call.data && <AnswerView answer={call.data} schema={tool.input_schema} />}
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
