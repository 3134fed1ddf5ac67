import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { ApiFailure } from '../api/client';

export { TableWrap } from './table-wrap';

type ButtonKind = 'primary' | 'danger' | 'ghost' | 'default';

export function Button({
  kind = 'default',
  small,
  className,
  type = 'button',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { kind?: ButtonKind; small?: boolean }) {
  const classes = ['button', kind !== 'default' ? kind : '', small ? 'small' : '', className ?? '']
    .filter(Boolean)
    .join(' ');
  return <button type={type} className={classes} {...rest} />;
}

export function Card({
  title,
  description,
  actions,
  children,
  flush,
  labelledBy,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  flush?: boolean;
  labelledBy?: string;
}) {
  return (
    <section className="card" aria-labelledby={labelledBy}>
      {(title || actions) && (
        <div className="card-head">
          <div>
            {title && <h2 id={labelledBy}>{title}</h2>}
            {description && <p>{description}</p>}
          </div>
          {actions && <div className="actions">{actions}</div>}
        </div>
      )}
      <div className={flush ? 'card-body flush' : 'card-body'}>{children}</div>
    </section>
  );
}

export function PageHead({
  title,
  description,
  actions,
  crumbs,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  crumbs?: ReactNode;
}) {
  return (
    <div className="page-head">
      <div>
        {crumbs && <div className="crumbs">{crumbs}</div>}
        <h1>{title}</h1>
        {description && <p>{description}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

/** An API error in words: its status and its `detail`. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : undefined;
  const detail = failure
    ? failure.detail
    : error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : 'Something went wrong.';
  return (
    <div className="notice error" role="alert">
      <div>
        <strong>{title ?? (failure?.status ? `Error ${failure.status}` : 'Error')}</strong>
        <p>{detail}</p>
      </div>
    </div>
  );
}

export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success';
  children: ReactNode;
}) {
  return (
    <div className={`notice ${kind}`} role="status">
      <div>{children}</div>
    </div>
  );
}

export function Skeleton({ width = '100%', height = 14 }: { width?: string; height?: number }) {
  return <div className="skeleton" style={{ width, height }} aria-hidden="true" />;
}

/** Rows of placeholders while a table loads; the page stays usable meanwhile. */
export function LoadingRows({ columns, rows = 4 }: { columns: number; rows?: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} aria-hidden="true">
          {Array.from({ length: columns }, (_, c) => (
            <td key={c}>
              <Skeleton width={c === 0 ? '70%' : '50%'} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="stack" role="status" aria-label={label}>
      <Skeleton width="60%" />
      <Skeleton width="90%" />
      <Skeleton width="75%" />
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

const STATUS_KIND: Record<string, string> = {
  active: 'good',
  ok: 'good',
  ready: 'good',
  succeeded: 'good',
  running: 'info',
  queued: 'info',
  pending: 'info',
  starting: 'info',
  ended: 'plain',
  refund: 'info',
  disabled: 'plain',
  cancelled: 'plain',
  expired: 'warn',
  timed_out: 'warn',
  degraded: 'bad',
  failing: 'bad',
  failed: 'bad',
  unavailable: 'bad',
  error: 'bad',
  revoked: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${STATUS_KIND[status] ?? ''}`}>{status.replace('_', ' ')}</span>;
}

export function Scopes({ scopes }: { scopes: readonly string[] }) {
  return (
    <span className="chips">
      {scopes.map((scope) => (
        <span className="chip" key={scope}>
          {scope}
        </span>
      ))}
    </span>
  );
}

const numbers = new Intl.NumberFormat('en');

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : numbers.format(value);
}

/** A limit: the number, or "none" when there is none. */
export function formatLimit(value: number | null | undefined): string {
  return value === null || value === undefined ? 'none' : numbers.format(value);
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

export function fromNow(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      return relative.format(Math.round(seconds / size), unit);
    }
  }
  return iso;
}

/** A time, relative, with the exact time in UTC as its title and datetime. */
export function Time({ at, empty = 'never' }: { at: string | null | undefined; empty?: string }) {
  if (!at) return <span className="cell-sub">{empty}</span>;
  return (
    <time dateTime={at} title={at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}>
      {fromNow(at)}
    </time>
  );
}

/** A bar of progress: done out of total, or an indeterminate count. */
export function ProgressBar({
  done,
  total,
  label,
}: {
  done: number;
  total: number | null;
  label: string;
}) {
  const fraction = total ? Math.min(1, done / total) : null;
  return (
    <div className="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total ?? undefined}
        aria-valuenow={done}
        aria-valuetext={total ? `${done} of ${total}` : `${done}`}
      >
        <div
          className="progress-fill"
          style={{ width: fraction === null ? '100%' : `${(fraction * 100).toFixed(1)}%` }}
        />
      </div>
      <span className="progress-text">{total ? `${done} / ${total}` : done}</span>
    </div>
  );
}

/** Previous and next page of a list read a page at a time. */
export function Pager({
  page,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
  note,
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  note?: ReactNode;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <span>
        Page {page}
        {note ? <> · {note}</> : null}
      </span>
      <span className="actions">
        <Button small disabled={!hasPrevious} onClick={onPrevious}>
          Previous
        </Button>
        <Button small disabled={!hasNext} onClick={onNext}>
          Next
        </Button>
      </span>
    </nav>
  );
}
