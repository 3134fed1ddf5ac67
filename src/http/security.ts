import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * helmet's headers, the same on both adapters: the middleware itself, run on the Node request and
 * response. The interactive docs get helmet's policy without `upgrade-insecure-requests`, which
 * would send the page's assets to https:// on a plain-HTTP deployment.
 */
const apiHeaders = helmet();
const docsPolicy = helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } });

/** Whether `path` is `mount` or below it, in any case (as Express mounts match). */
function under(path: string, mount: string): boolean {
  const lower = path.toLowerCase();
  return lower === mount || lower.startsWith(`${mount}/`) || lower.startsWith(`${mount}?`);
}

/** Sets the security headers of a request's answer; calls back at once. */
export function securityHeaders(docsPath: string) {
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    apiHeaders(req, res, (error?: unknown) => {
      if (error || !under(req.url ?? '/', docsPath)) return next(error);
      docsPolicy(req, res, next);
    });
  };
}
