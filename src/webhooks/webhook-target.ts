import { lookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { TimeoutError, withTimeout } from '../kernel/common/timeout';

/** Resolves a host name to every address it has: the one seam name resolution goes through. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address in its own order. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** What a receiver answered, or why there was no answer. */
export interface TargetAnswer {
  status?: number;
  /** seconds, from Retry-After (delta-seconds or HTTP date), when given */
  retryAfterSeconds?: number;
  /** what went wrong when there was no HTTP answer or it was refused: short text, never the body */
  error?: string;
}

type CheckedAddress = { address: string; family: 4 | 6 };

const MAX_URL_LENGTH = 2_048;
/** Enough for any acknowledgement; a receiver cannot make a delivery hold more memory than this. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** An error text is for an operator's eyes in a list, not a stack trace. */
const MAX_ERROR_LENGTH = 200;
const PRIVATE_HINT = '(WEBHOOK_ALLOW_PRIVATE=true allows private and loopback receivers)';
const HTTP_HINT = '(WEBHOOK_ALLOW_PRIVATE=true allows http:// for internal receivers)';
const USER_AGENT = 'tool-invocation-service-webhooks/1';
const JSON_TYPE = 'application/json';

/**
 * Instance metadata services hand out the host's cloud credentials: never a receiver, even on an
 * operator's own network. Two of them sit in ranges allowPrivate opens (ULA, CGNAT).
 */
const CLOUD_METADATA = new Set(
  ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((address) =>
    ipaddr.parse(address).toNormalizedString(),
  ),
);
/** IPv4-compatible IPv6 (::/96, deprecated by RFC 4291): ipaddr.js calls it unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** ipaddr.js range names of an operator's own network: receivers only with allowPrivate. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal']);
/** How a refusal names a range; any other (reserved, 6to4, NAT64 …) is special-purpose. */
const RANGE_NAMES: Record<string, string> = {
  cloudMetadata: 'a cloud metadata address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address',
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  carrierGradeNat: 'a carrier-grade NAT address',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

/**
 * The ipaddr.js range of an address, with two of our own: cloud metadata and IPv4-compatible.
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1) reaches its v4 address, so it is judged as one.
 */
function rangeOf(address: string): string {
  const parsed = ipaddr.parse(address);
  const ip =
    parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  if (CLOUD_METADATA.has(ip.toNormalizedString())) return 'cloudMetadata';
  const range = ip.range();
  const compatible = range === 'unicast' && ip.kind() === 'ipv6' && ip.match(IPV4_COMPATIBLE);
  return compatible ? 'ipv4Compatible' : range;
}

/**
 * Why `address` cannot be a receiver ("a loopback address: not allowed (…)"), or undefined. Only
 * public unicast is allowed by default; allowPrivate adds the operator's own network, never
 * link-local, metadata, unspecified, multicast or reserved space.
 */
function addressRefusal(address: string, allowPrivate: boolean): string | undefined {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return 'not an IP address: not allowed.';
  const range = rangeOf(address);
  if (range === 'unicast') return undefined;
  const isPrivate = PRIVATE_RANGES.has(range);
  if (isPrivate && allowPrivate) return undefined;
  const name = RANGE_NAMES[range] ?? `a special-purpose address (${range})`;
  return isPrivate ? `${name}: not allowed ${PRIVATE_HINT}.` : `${name}: never allowed.`;
}

/** The URL's host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The query string that views show in its place: a URL sent back with it would store it. */
const HIDDEN_QUERY = '?%E2%80%A6';

/** Why the URL's scheme is refused: https:// always, http:// only on the operator's say. */
function schemeRefusal(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && allowPrivate)) return undefined;
  if (allowPrivate) return 'Webhook URLs must use https:// or http://.';
  return `Webhook URLs must use https:// ${HTTP_HINT}.`;
}

/**
 * Why a URL is refused as a webhook target before any lookup (scheme, credentials, length, an IP
 * literal in a refused range), or undefined when its shape is acceptable. Used at creation for a
 * 400 `{detail}` whose text says why, e.g. "Webhook URLs must use https:// (WEBHOOK_ALLOW_PRIVATE=
 * true allows http:// for internal receivers)." or "The webhook URL's address 127.0.0.1 is a
 * loopback address: not allowed (WEBHOOK_ALLOW_PRIVATE=true allows private and loopback
 * receivers)."
 */
export function urlRefusal(url: string, allowPrivate: boolean): string | undefined {
  if (url.length > MAX_URL_LENGTH) return 'Webhook URLs must be at most 2,048 characters long.';
  if (!URL.canParse(url)) return 'The webhook URL is not a valid absolute URL.';
  const parsed = new URL(url);
  const scheme = schemeRefusal(parsed, allowPrivate);
  if (scheme) return scheme;
  // Credentials in a URL end up in logs and lists; a receiver checks the delivery's signature.
  if (parsed.username || parsed.password) {
    return 'Webhook URLs must not contain credentials (user:password@).';
  }
  if (parsed.search === HIDDEN_QUERY) {
    return "The webhook URL's query string is shown as ?… and never returned: send the whole URL, its query string included.";
  }
  const host = bareHost(parsed);
  if (isIP(host) === 0) return undefined;
  const refusal = addressRefusal(host, allowPrivate);
  return refusal && `The webhook URL's address ${host} is ${refusal}`;
}

/** Every address `host` resolves to, or undefined when it does not resolve. */
async function resolveAll(host: string, resolver: Resolver): Promise<string[] | undefined> {
  try {
    const found = await resolver(host);
    return found.length > 0 ? found.map(({ address }) => address) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves the URL's host with `resolver` and checks every address; returns the address to connect
 * to or a refusal text (e.g. "The webhook URL's host localhost resolves to 127.0.0.1, a loopback
 * address: not allowed (...)"). Also runs urlRefusal first. A resolution failure is a refusal text
 * too ("The webhook URL's host x.invalid does not resolve."). An IP literal is checked unresolved.
 */
export async function resolveTarget(
  url: string,
  allowPrivate: boolean,
  resolver: Resolver,
): Promise<{ ok: true; address: string; family: 4 | 6 } | { ok: false; refusal: string }> {
  const refusal = urlRefusal(url, allowPrivate);
  if (refusal) return { ok: false, refusal };
  const host = bareHost(new URL(url));
  const addresses = isIP(host) === 0 ? await resolveAll(host, resolver) : [host];
  if (!addresses) return { ok: false, refusal: `The webhook URL's host ${host} does not resolve.` };
  // Every address, not the first: a name with one public and one private address is a way in.
  for (const address of addresses) {
    const refused = addressRefusal(address, allowPrivate);
    if (refused) {
      return {
        ok: false,
        refusal: `The webhook URL's host ${host} resolves to ${address}, ${refused}`,
      };
    }
  }
  return { ok: true, address: addresses[0], family: isIP(addresses[0]) === 6 ? 6 : 4 };
}

/**
 * A lookup that answers with the checked address whatever it is asked: the connection goes where
 * the check looked, with no second resolution a DNS rebinding could answer differently.
 */
function pinnedLookup(target: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/** The caller's headers over our defaults; Host and Content-Length are the URL's and the body's. */
function requestHeaders(url: URL, given: Record<string, string>, body: string) {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

/** Seconds from a Retry-After value: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The status and Retry-After of an answer; its body is never part of it. */
function answerOf(response: http.IncomingMessage): TargetAnswer {
  const retryAfter = retryAfterSeconds(response.headers['retry-after']);
  return retryAfter === undefined
    ? { status: response.statusCode }
    : { status: response.statusCode, retryAfterSeconds: retryAfter };
}

/** Calls `done` once the body has ended or passed MAX_ANSWER_BYTES, whichever is first. */
function readAtMost(response: http.IncomingMessage, done: () => void): void {
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_ANSWER_BYTES) done();
  });
  response.on('end', done);
  response.on('error', done);
}

/** A short text of a connection error (refused, TLS, reset …). */
function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, MAX_ERROR_LENGTH);
}

/**
 * One POST on a fresh connection to the checked address, TLS checked against the host name (SNI
 * and certificate). A redirect is an answer like any other. Settles once, then the socket goes.
 */
function send(
  url: URL,
  target: CheckedAddress,
  request: { headers: Record<string, string>; body: string },
  timeoutMs: number,
  timedOut: string,
): Promise<TargetAnswer> {
  return new Promise((resolve) => {
    const host = bareHost(url);
    let response: http.IncomingMessage | undefined;
    let outgoing: http.ClientRequest | undefined;
    const finish = (answer: TargetAnswer) => {
      clearTimeout(timer);
      outgoing?.destroy();
      resolve(answer);
    };
    // A status line that came in time is the answer, even when its body broke off or lags.
    const fail = (error: string) => finish(response ? answerOf(response) : { error });
    const timer = setTimeout(() => fail(timedOut), timeoutMs);
    try {
      const client = url.protocol === 'https:' ? https : http;
      outgoing = client.request({
        method: 'POST',
        hostname: host,
        port: url.port ? Number(url.port) : undefined,
        path: `${url.pathname}${url.search}`,
        headers: requestHeaders(url, request.headers, request.body),
        agent: false,
        lookup: pinnedLookup(target),
        servername: isIP(host) === 0 ? host : undefined,
      });
      outgoing.on('response', (answered: http.IncomingMessage) => {
        response = answered;
        readAtMost(answered, () => finish(answerOf(answered)));
      });
      outgoing.on('error', (error) => fail(errorText(error)));
      outgoing.end(request.body);
    } catch (error) {
      fail(errorText(error));
    }
  });
}

/**
 * POSTs `body` with `headers` to the URL, connected to the address resolveTarget checked; never
 * follows a redirect; reads at most 64 KB of the answer; gives up after timeoutMs (error "timed out
 * after 15 s"). A refused target is `{ error: <the refusal> }` and no connection. Never throws.
 */
export async function postToTarget(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { allowPrivate: boolean; resolver: Resolver; timeoutMs: number },
): Promise<TargetAnswer> {
  const startedAt = Date.now();
  const timedOut = `timed out after ${options.timeoutMs / 1000} s`;
  const resolving = () => resolveTarget(url, options.allowPrivate, options.resolver);
  const target = await withTimeout(resolving, options.timeoutMs, timedOut).catch((error) => ({
    ok: false as const,
    refusal: error instanceof TimeoutError ? timedOut : errorText(error),
  }));
  if (!target.ok) return { error: target.refusal };
  const left = Math.max(1, options.timeoutMs - (Date.now() - startedAt));
  return send(new URL(url), target, { headers, body }, left, timedOut);
}
