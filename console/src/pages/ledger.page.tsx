import { useMutation } from '@tanstack/react-query';
import { type FormEvent, type ReactElement, useId, useState } from 'react';
import { download } from '../api/download';
import { LedgerEntries, type LedgerQuery } from '../components/ledger-entries';
import { ledgerUrl, LedgerTotals } from '../components/ledger-totals';
import { Button, Card, ErrorNotice, PageHead } from '../components/ui';
import type { PageDefinition } from '../pages';

const SUBJECT = /^(key:)?(key_[0-9a-f]{16})$|^(principal:)?(prn_[0-9a-f]{32})$/;
const RUN = /^run_[0-9a-f]{32}$/;
const DAY_MS = 86_400_000;

interface Form {
  from: string;
  to: string;
  subject: string;
  run: string;
  tool: string;
}

/** A time of a `datetime-local` field, read as UTC (the ledger's days are UTC days). */
function instant(value: string): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** A `datetime-local` value, in UTC, to the minute. */
function fieldTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/** The `subject` parameter of an id (`key_…`, `prn_…`) or of a subject as the API writes it. */
function subjectOf(value: string): string {
  const match = SUBJECT.exec(value);
  if (!match) return value;
  return match[2] ? `key:${match[2]}` : `principal:${match[4]}`;
}

/** What is wrong with each field, in words (none: the form may be applied). */
function problemsOf(form: Form): Partial<Record<keyof Form, string>> {
  const problems: Partial<Record<keyof Form, string>> = {};
  const from = instant(form.from);
  const to = instant(form.to);
  if (form.from && !from) problems.from = 'Not a date and time.';
  if (form.to && !to) problems.to = 'Not a date and time.';
  if (from && Date.parse(from) > (to ? Date.parse(to) : Date.now())) {
    problems.from = 'After the end of the range.';
  }
  const subject = form.subject.trim();
  if (subject && !SUBJECT.test(subject)) {
    problems.subject = 'Not a key id (key_…) or a principal id (prn_…).';
  }
  if (form.run.trim() && !RUN.test(form.run.trim())) problems.run = 'Not a run id (run_…).';
  if (form.tool.trim().length > 200) problems.tool = 'At most 200 characters.';
  return problems;
}

function queryOf(form: Form): LedgerQuery {
  const query: LedgerQuery = {};
  const from = instant(form.from);
  const to = instant(form.to);
  if (from) query.from = from;
  if (to) query.to = to;
  if (form.subject.trim()) query.subject = subjectOf(form.subject.trim());
  if (form.run.trim()) query.run = form.run.trim();
  if (form.tool.trim()) query.tool = form.tool.trim();
  return query;
}

function Field({
  label,
  hint,
  problem,
  children,
}: {
  label: string;
  hint: string;
  problem?: string;
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string;
  }) => ReactElement;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': !!problem, 'aria-describedby': `${id}-hint` })}
      <span className={problem ? 'hint problem' : 'hint'} id={`${id}-hint`}>
        {problem ?? hint}
      </span>
    </div>
  );
}

/** The applied range as a file: CSV or NDJSON, fetched with the key in its header. */
function useDownload(query: LedgerQuery) {
  return useMutation({
    mutationFn: (format: 'csv' | 'ndjson') => {
      const range = `${(query.from ?? 'last-30-days').slice(0, 10)}-to-${(query.to ?? 'now').slice(0, 10)}`;
      return format === 'csv'
        ? download(ledgerUrl(query), 'text/csv', `ledger-${range}.csv`)
        : download(ledgerUrl(query), 'application/x-ndjson', `ledger-${range}.ndjson`);
    },
  });
}

function Ledger() {
  const [form, setForm] = useState<Form>(() => ({
    from: fieldTime(Date.now() - 30 * DAY_MS),
    to: '',
    subject: '',
    run: '',
    tool: '',
  }));
  const [applied, setApplied] = useState<{ query: LedgerQuery; time: number }>(() => ({
    query: queryOf(form),
    time: Date.now(),
  }));
  const [checked, setChecked] = useState(false);
  const problems = problemsOf(form);
  const shown = checked ? problems : {};
  const set = (name: keyof Form) => (event: { target: { value: string } }) =>
    setForm((all) => ({ ...all, [name]: event.target.value }));
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(problems).length) return;
    // Applied again, the same range is read again (its totals too).
    setApplied({ query: queryOf(form), time: Date.now() });
  };
  const query = applied.query;
  const save = useDownload(query);
  const busy = (format: 'csv' | 'ndjson') => save.isPending && save.variables === format;
  return (
    <div className="stack">
      <PageHead
        title="Ledger"
        description="Every counted call and refund, what bills are built from: a range of time (UTC) and its totals, downloaded as CSV or NDJSON."
      />
      <section className="card" aria-label="The range">
        <form className="toolbar" role="search" onSubmit={apply} noValidate>
          <Field label="From (UTC)" hint="Inclusive" problem={shown.from}>
            {(props) => (
              <input type="datetime-local" value={form.from} onChange={set('from')} {...props} />
            )}
          </Field>
          <Field label="To (UTC)" hint="Exclusive; empty: now" problem={shown.to}>
            {(props) => (
              <input type="datetime-local" value={form.to} onChange={set('to')} {...props} />
            )}
          </Field>
          <Field label="Subject" hint="key_… or prn_…" problem={shown.subject}>
            {(props) => (
              <input type="search" value={form.subject} onChange={set('subject')} {...props} />
            )}
          </Field>
          <Field label="Run" hint="run_…" problem={shown.run}>
            {(props) => <input type="search" value={form.run} onChange={set('run')} {...props} />}
          </Field>
          <Field label="Tool" hint="A tool's name" problem={shown.tool}>
            {(props) => <input type="search" value={form.tool} onChange={set('tool')} {...props} />}
          </Field>
          <div className="toolbar-actions">
            <Button kind="primary" type="submit">
              Show
            </Button>
            <span className="spacer" />
            <Button disabled={save.isPending} onClick={() => save.mutate('csv')}>
              {busy('csv') ? 'Preparing CSV…' : 'Download CSV'}
            </Button>
            <Button disabled={save.isPending} onClick={() => save.mutate('ndjson')}>
              {busy('ndjson') ? 'Preparing NDJSON…' : 'Download NDJSON'}
            </Button>
          </div>
        </form>
        <ErrorNotice error={save.error} title="Not downloaded" />
      </section>
      <LedgerTotals query={query} version={applied.time} />
      <Card title="Entries" description="Oldest first" flush labelledBy="ledger-entries">
        <LedgerEntries key={applied.time} query={query} label="Ledger entries" />
      </Card>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/ledger',
  title: 'Ledger',
  nav: { label: 'Ledger', order: 45, icon: 'ledger' },
  component: Ledger,
};
