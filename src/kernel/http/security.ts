import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

type HeaderList = readonly (readonly [string, string])[];

/**
 * The headers a helmet middleware sets, read once: helmet's values do not depend on the request,
 * so each answer gets the list, not a run of the middleware (docs/performance.md, "Why the hot path is written as it is").
 */
function headersOf(
  middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void,
): Map<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: () => undefined,
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}

/** Whether `path` is `mount` or below it, in any case (as Express mounts match). */
function under(path: string, mount: string): boolean {
  const lower = path.toLowerCase();
  return lower === mount || lower.startsWith(`${mount}/`) || lower.startsWith(`${mount}?`);
}

/** The front page, `GET /` (src/kernel/openapi/front-page.ts), with or without a query. */
function frontPage(url: string): boolean {
  return url === '/' || url.startsWith('/?');
}

/**
 * helmet's headers, the same on both adapters, for a request's URL. The interactive docs and the
 * front page, whose links lead to them, get helmet's policy without `upgrade-insecure-requests`,
 * which would send the docs' assets, and a click on a link, to https:// on a plain-HTTP deployment.
 */
export function securityHeaders(docsPath: string): (url: string) => HeaderList {
  const api = headersOf(helmet());
  const docs = new Map([
    ...api,
    ...headersOf(helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } })),
  ]);
  const [apiList, docsList] = [[...api], [...docs]];
  return (url) => (under(url, docsPath) || frontPage(url) ? docsList : apiList);
}

type PolicyDirectives = NonNullable<
  NonNullable<Parameters<typeof helmet.contentSecurityPolicy>[0]>['directives']
>;

/** The `Content-Security-Policy` helmet makes of `directives` over its own defaults. */
export function contentSecurityPolicy(directives: PolicyDirectives): string {
  const headers = headersOf(helmet.contentSecurityPolicy({ directives }));
  return headers.get('Content-Security-Policy') as string;
}
