import type { ApiKeyView } from '../../subjects';
import { printable } from '../../kernel/common/text';
import type { AuditEntry } from '../../audit';

/** A line of output made by `line`: the only kind `out` writes. */
export type Line = string & { readonly __printable: never };

/**
 * A line of output from a template whose values are shown printable: a name, a plan or an audit
 * detail holds whatever was stored (a name from before labels were checked, a record written by
 * hand), and must reach the operator's terminal as text, never as an escape sequence or a forged
 * row. The template's own text (its tabs) stays as written.
 */
export function line(template: TemplateStringsArray, ...values: unknown[]): Line {
  let text = template[0];
  values.forEach((value, i) => (text += printable(String(value)) + template[i + 1]));
  return text as Line;
}

export const out = (text: Line): void => {
  process.stdout.write(`${text}\n`);
};

/** One key, a line a setting. */
export function describeKey(v: ApiKeyView): Line[] {
  return [
    line`${v.id} (${v.name}): ${v.status}`,
    line`  prefix      ${v.prefix}...`,
    line`  scopes      ${v.scopes.join(',')}`,
    line`  plan        ${v.plan}`,
    line`  daily_limit ${v.daily_limit ?? "plan's"}`,
    line`  monthly_limit ${v.monthly_limit ?? "plan's"}`,
    line`  rate_limit  ${v.rate_limit ?? "plan's"}`,
    line`  created_at  ${v.created_at}`,
    line`  expires_at  ${v.expires_at ?? 'never'}`,
    line`  last_used   ${v.last_used_at ?? 'never'}`,
    ...(v.external_id !== null ? [line`  external_id ${v.external_id}`] : []),
    ...(v.previous_key_expires_at
      ? [line`  previous key valid until ${v.previous_key_expires_at}`]
      : []),
  ];
}

/**
 * Who made an audited change, as one word: the key's or the principal's id, else `cli` (the
 * operator's CLI) or `system` (the first start), which the entry records as `details.source`.
 */
export function auditActor(entry: AuditEntry): string {
  const source = entry.details.source;
  return (
    entry.actor_key_id ??
    entry.actor_principal_id ??
    (source === 'cli' || source === 'system' ? source : '-')
  );
}

/** Not a usage mistake: the key is not there (exit 1). */
export function notFound(id: string): Error {
  return new Error(`API key not found: ${id}`);
}
