import type { INestApplication } from '@nestjs/common';

export const FRONT_PAGE_PATH = '/';

/**
 * What `GET /` answers: where to go from here. Links are relative, so that they hold behind a proxy
 * that serves the service under a path of its own; no script and no inline style, so that the
 * page needs nothing the content security policy would refuse. The repository's own pages are
 * named, not served.
 */
export const FRONT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tool invocation service</title>
</head>
<body>
<h1>Tool invocation service</h1>
<p>Tools as authenticated JSON endpoints, <code>POST /api/v1/services/&lt;tool&gt;</code>, and over
the Model Context Protocol, <code>POST /mcp</code>. Every call carries
<code>Authorization: Bearer &lt;key&gt;</code>.</p>
<ul>
<li><a href="docs">/docs</a>: the API, to read and try (Swagger UI)</li>
<li><a href="openapi.json">/openapi.json</a>: the OpenAPI document, to generate a client from</li>
<li><a href="health">/health</a>: whether the service and its store are healthy</li>
<li><code>GET /api/v1/services</code>: the tools your key may call, with their schemas and prices</li>
</ul>
<p>The documentation is in the service's repository, not served here: <code>README.md</code>, then
<code>docs/api.md</code> (every route, status and header), <code>docs/keys-and-limits.md</code>,
<code>docs/mcp.md</code>, <code>docs/oauth.md</code>, <code>docs/adding-a-tool.md</code> and
<code>docs/operations.md</code>.</p>
</body>
</html>
`;

/**
 * `GET /` (and HEAD): a small page for whoever opens the service's address in a browser. A plain
 * route of the adapter, like `/docs`: open to everyone, never rate limited or metered.
 */
export function setupFrontPage(app: INestApplication): void {
  const adapter = app.getHttpAdapter();
  adapter.get(FRONT_PAGE_PATH, (_req: unknown, res: unknown) => {
    adapter.setHeader(res, 'Content-Type', 'text/html; charset=utf-8');
    adapter.reply(res, FRONT_PAGE, 200);
  });
}
