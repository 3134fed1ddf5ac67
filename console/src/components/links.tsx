import { Link } from 'wouter';

const PAGES: [RegExp, string][] = [
  [/^key_[0-9a-f]{16}$/, '/keys/'],
  [/^prn_[0-9a-f]{32}$/, '/principals/'],
  [/^run_[0-9a-f]{32}$/, '/runs/'],
  [/^wh_[0-9a-f]{16}$/, '/webhooks/'],
];

/** An id as a link to its page (a key, a principal, a run, a webhook endpoint); else as text. */
export function IdLink({ id, short }: { id: string; short?: boolean }) {
  const text = short && id.length > 16 ? `${id.slice(0, 16)}…` : id;
  const base = PAGES.find(([pattern]) => pattern.test(id))?.[1];
  if (!base) return <span className="mono">{text}</span>;
  return (
    <Link href={`${base}${id}`} className="mono" title={short ? id : undefined}>
      {text}
    </Link>
  );
}
