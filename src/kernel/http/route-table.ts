import { Injectable } from '@nestjs/common';
import { match, type MatchFunction } from 'path-to-regexp';

/** One route as the adapter registered it: its template and methods. */
export interface RouteDefinition {
  template: string;
  methods: readonly string[];
}

interface RouteEntry {
  template: string;
  methods: readonly string[];
  matches: MatchFunction<Partial<Record<string, string>>>;
}

/**
 * The application's routes as a table, for what is asked of a path outside routing: the `Allow`
 * header of a 405, and the route label of a request answered before routing (413, 415, malformed
 * JSON). The adapter says where its routes are read (readFrom); the table is built on first use,
 * when every route is registered. It matches as the router does (case-insensitive, a trailing slash
 * ignored) but never decodes a parameter, so no path, however malformed, can make it throw.
 */
@Injectable()
export class RouteTable {
  private source: () => Iterable<RouteDefinition> = () => [];
  private entries?: RouteEntry[];

  readFrom(source: () => Iterable<RouteDefinition>): void {
    this.source = source;
    this.entries = undefined;
  }

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
    this.entries ??= [...this.source()]
      // Wildcard routes are middleware or file mounts for every path, not endpoints.
      .filter((route) => !route.template.includes('*'))
      .map(({ template, methods }) => {
        const loose = template === '/' ? template : template.replace(/\/+$/, '');
        return {
          template,
          methods,
          matches: match(loose, { decode: false, sensitive: false, trailing: true }),
        };
      });
    return this.entries;
  }
}
