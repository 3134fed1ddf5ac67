import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { match, type MatchFunction } from 'path-to-regexp';

/** The part of Express 5's router this reads: each route's path and methods. */
interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

export interface ExpressLike {
  router?: { stack: RouterLayer[] };
}

interface RouteEntry {
  template: string;
  methods: string[];
  matches: MatchFunction<Partial<Record<string, string>>>;
}

/**
 * The application's routes as a table, read once from the router after start-up, for what is asked
 * of a path outside routing: the `Allow` header of a 405, and the route label of a request answered
 * before routing (413, 415, malformed JSON). It matches as Express does (case-insensitive, a trailing
 * slash ignored) but never decodes a parameter, so no path, however malformed, can make it throw.
 */
@Injectable()
export class RouteTable {
  private entries?: RouteEntry[];

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** The template of the first route a path matches, any method (`/api/v1/auth/api-keys/:id`). */
  templateFor(path: string): string | undefined {
    return this.table().find((entry) => entry.matches(path))?.template;
  }

  /** The methods the routes of a path accept (HEAD with GET); empty when no route has that path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.table()) {
      if (entry.matches(path)) entry.methods.forEach((method) => methods.add(method));
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  private table(): RouteEntry[] {
    // Built on first use: every route is registered by then (the app is initialised before it listens).
    const app = this.adapterHost.httpAdapter.getInstance<ExpressLike>();
    this.entries ??= (app.router?.stack ?? []).flatMap((layer) => {
      const route = layer.route;
      // Wildcard routes are middleware mounted for every path (request logging), not endpoints.
      if (!route || typeof route.path !== 'string' || route.path.includes('*')) return [];
      const methods = Object.entries(route.methods)
        .filter(([method, on]) => on && method !== '_all')
        .map(([method]) => method.toUpperCase());
      const template = route.path;
      const loose = template === '/' ? template : template.replace(/\/+$/, '');
      return [{ template, methods, matches: match(loose, { decode: false, trailing: true }) }];
    });
    return this.entries;
  }
}
