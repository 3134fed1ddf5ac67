import { resolveTarget, urlRefusal, type Resolver } from '../webhooks';
import type { SourceFieldsInput } from './source-config';

/** The token endpoint of a source's OAuth client, which the URL rules hold to as its other URLs. */
export function tokenUrlOf(auth: SourceFieldsInput['auth']): string | undefined {
  return auth?.type === 'oauth_client_credentials' ? auth.token_url : undefined;
}

/** The webhook target rules' words, said of a source and its own switch. */
function asSource(text: string): string {
  return text
    .replace(/Webhook URLs/g, 'Source URLs')
    .replace(/webhook URL/g, 'source URL')
    .replace(/WEBHOOK_ALLOW_PRIVATE/g, 'SOURCE_ALLOW_PRIVATE')
    .replace(/receivers/g, 'upstreams');
}

/**
 * Why an upstream URL (a source's `url`, `document`, `base_url`, its OAuth `token_url`) is refused before any lookup, in
 * the webhook target rules (no link-local or metadata address ever; loopback, private ranges and
 * http:// only with SOURCE_ALLOW_PRIVATE=true), or undefined.
 */
export function sourceUrlRefusal(url: string, allowPrivate: boolean): string | undefined {
  const refusal = urlRefusal(url, allowPrivate);
  return refusal && asSource(refusal);
}

/**
 * Resolves the URL's host and checks every address it has (the webhook rules); throws with the
 * refusal's words when one is refused. Called before each connection to an upstream.
 */
export async function checkSourceUrl(
  url: string,
  allowPrivate: boolean,
  resolver: Resolver,
): Promise<void> {
  const target = await resolveTarget(url, allowPrivate, resolver);
  if (!target.ok) throw new Error(asSource(target.refusal));
}
