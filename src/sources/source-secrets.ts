import { z } from 'zod';
import type { SourceDefinition, SourceFieldsInput } from './source-config';

/** The fields of a source whose query string is write-only. */
const URL_FIELDS = ['url', 'document', 'base_url'] as const;

/** What of a source is secret: its `auth`, and the query strings of its URLs. */
export interface SourceSecrets {
  auth?: SourceFieldsInput['auth'];
  query?: Partial<Record<(typeof URL_FIELDS)[number], string>>;
}

const Secrets = z.object({
  auth: z.unknown().optional(),
  query: z.record(z.string(), z.string()).optional(),
});

/** The fields split into what is kept as it is and the secrets (null when there are none). */
export function splitSecrets(fields: SourceFieldsInput): {
  open: Record<string, unknown>;
  secrets: SourceSecrets | null;
} {
  const { auth, ...open } = fields as SourceFieldsInput & Record<string, unknown>;
  const query: SourceSecrets['query'] = {};
  for (const field of URL_FIELDS) {
    const value = open[field];
    if (typeof value !== 'string' || !URL.canParse(value)) continue;
    const url = new URL(value);
    if (!url.search) continue;
    query[field] = url.search;
    url.search = '';
    open[field] = url.href;
  }
  const secrets: SourceSecrets = {
    ...(auth ? { auth } : {}),
    ...(Object.keys(query).length ? { query } : {}),
  };
  return { open, secrets: Object.keys(secrets).length ? secrets : null };
}

/** The fields again, from what was kept and the secrets (as JSON) that splitSecrets took out. */
export function joinSecrets(open: Record<string, unknown>, secretsJson: string | null): unknown {
  if (secretsJson === null) return open;
  const secrets = Secrets.parse(JSON.parse(secretsJson));
  const fields: Record<string, unknown> = { ...open };
  if (secrets.auth !== undefined) fields.auth = secrets.auth;
  for (const [field, search] of Object.entries(secrets.query ?? {})) {
    const value = fields[field];
    if (typeof value !== 'string' || !URL.canParse(value)) continue;
    const url = new URL(value);
    url.search = search;
    fields[field] = url.href;
  }
  return fields;
}

/**
 * The texts of a source that no answer, log line or audit entry may hold: its credentials, its
 * URLs' query strings and their values (those 4 characters or longer: a shorter one would blank
 * ordinary words).
 */
export function secretTexts(definition: SourceDefinition): string[] {
  const texts: string[] = [];
  if (definition.auth?.type === 'bearer') texts.push(definition.auth.token);
  if (definition.auth?.type === 'header') texts.push(definition.auth.value);
  if (definition.auth?.type === 'oauth_client_credentials')
    texts.push(definition.auth.client_secret);
  for (const value of [definition.url, definition.document, definition.baseUrl]) {
    if (!value || !URL.canParse(value)) continue;
    const url = new URL(value);
    if (!url.search) continue;
    texts.push(url.search.slice(1), ...url.searchParams.values());
  }
  return texts.filter((text) => text.length >= 4).sort((a, b) => b.length - a.length);
}

/** `text` with every secret of the source in it replaced by `[secret]`. */
export function redacted(definition: SourceDefinition, text: string): string {
  let said = text;
  for (const secret of secretTexts(definition)) {
    said = said.split(secret).join('[secret]');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) said = said.split(encoded).join('[secret]');
  }
  return said;
}
