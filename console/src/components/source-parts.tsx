import { type InputHTMLAttributes, useId } from 'react';
import type { Schemas } from '../api/client';
import { StatusBadge } from './ui';

type Source = Schemas['SourceView'];

/** How often a source is read again: every second while it starts, else as other pages are. */
export const STARTING_MS = 1_000;
export const IDLE_MS = 10_000;

/** A source's name, as the API takes it. */
export const SOURCE_NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** The prefix of its tools' names. */
export const SOURCE_PREFIX = /^[A-Za-z0-9_.-]{1,32}$/;

/** What kind of upstream a source is, in words. */
export function kindOf(source: Source): string {
  if (source.kind === 'openapi') return 'OpenAPI document';
  return source.command !== undefined ? 'MCP server over stdio' : 'MCP server over HTTP';
}

/** Where the upstream is: its URL (query string shown as ?…) or its command. */
export function whereOf(source: Source): string {
  return source.url ?? source.command ?? '';
}

export const ORIGINS: Record<Source['origin'], string> = { config: 'CONFIG_FILE', api: 'API' };

/** A source's state, in the badges' colours: ready, starting, unavailable, error. */
export function SourceState({ source }: { source: Source }) {
  return <StatusBadge status={source.state} />;
}

/** A long text cut at a word within its first `max` characters (the whole of it on the source's page). */
export function shortened(text: string, max = 80): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A text as typed: a problem when it is given and not a http(s) URL. */
export function urlProblem(text: string, what: string): string | undefined {
  const url = text.trim();
  if (!url) return `Required: ${what}.`;
  return /^https?:\/\/\S+$/i.test(url) ? undefined : 'A URL: https://…';
}

/** A whole number as typed, within bounds; blank is no problem (the field is not sent). */
export function numberProblem(text: string, min: number, max?: number): string | undefined {
  const typed = text.trim();
  if (!typed) return undefined;
  const value = Number(typed);
  if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    return max === undefined
      ? `A whole number, ${min} or more.`
      : `A whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}.`;
  }
  return undefined;
}

/** Names or globs typed with commas between them. */
export function listOf(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** A labelled text field with its hint, or its problem in the hint's place. */
export function TextField({
  label,
  hint,
  problem,
  value,
  onChange,
  ...input
}: {
  label: string;
  hint: string;
  problem?: string;
  value: string;
  onChange: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'id'>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        autoComplete="off"
        {...input}
        value={value}
        aria-invalid={!!problem}
        aria-describedby={`${id}-hint`}
        onChange={(event) => onChange(event.target.value)}
      />
      <span className={problem ? 'hint problem' : 'hint'} id={`${id}-hint`}>
        {problem ?? hint}
      </span>
    </div>
  );
}
