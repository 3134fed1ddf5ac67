import { fetchBounded, IssuerFetchLimits, jsonOf } from './issuer-fetch';

/**
 * The issuer's `jwks_uri`, from the first metadata document found: RFC 8414's (the well-known
 * path inserted before the issuer's path), then OpenID Connect's (appended, then inserted). The
 * document must name this very issuer (RFC 8414 §3.3). Each answer is bounded (fetchBounded): a
 * redirect or an answer over the limit is that URL's failure, and the next is asked.
 */
export async function jwksUriOf(issuer: string, limits: IssuerFetchLimits): Promise<URL> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const answer = await fetchBounded(url, limits, { headers: { accept: 'application/json' } });
      if (answer.status !== 200) {
        failures.push(`${url}: HTTP ${answer.status}`);
        continue;
      }
      const metadata = jsonOf(answer) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (metadata?.issuer !== issuer) {
        failures.push(`${url}: names issuer ${JSON.stringify(metadata?.issuer)}`);
        continue;
      }
      if (typeof metadata.jwks_uri !== 'string' || !/^https?:\/\//.test(metadata.jwks_uri)) {
        failures.push(`${url}: no jwks_uri`);
        continue;
      }
      return new URL(metadata.jwks_uri);
    } catch (error) {
      failures.push(`${url}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no metadata (${failures.join('; ')})`);
}

/** Where an issuer's metadata may be (RFC 8414 §3.1, OpenID Connect Discovery §4, both forms). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const inserted = (suffix: string) => `${url.origin}/.well-known/${suffix}${path}`;
  return [
    ...new Set([
      inserted('oauth-authorization-server'),
      `${url.origin}${path}/.well-known/openid-configuration`,
      inserted('openid-configuration'),
    ]),
  ];
}
