/** Minimal view of Express 5's router, enough to ask which methods a path answers to. */
interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

interface ExpressLike {
  router?: { stack: RouterLayer[] };
}

/**
 * The methods the application's routes accept for a path, for `405 Method Not Allowed` and its
 * `Allow` header. Empty when no route has that path.
 */
export function allowedMethods(app: ExpressLike, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of app.router?.stack ?? []) {
    // Wildcard routes are middleware mounted for every method (request logging), not endpoints.
    if (!layer.route || layer.route.path.includes('*') || !layer.match(path)) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The template of the route a path matches (any method), e.g. `/api/v1/auth/api-keys/:id`. */
export function routeTemplateFor(app: ExpressLike, path: string): string | undefined {
  for (const layer of app.router?.stack ?? []) {
    if (layer.route && !layer.route.path.includes('*') && layer.match(path))
      return layer.route.path;
  }
  return undefined;
}
