import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathOf } from './body';
import { httpPlatform, type HttpAdapterName } from './platform';
import type { HttpPlatform, NodeExchange } from './plumbing';

/**
 * The request and response of whichever adapter runs, as guards, filters and controllers need them,
 * without knowing which: headers through Nest's adapter, the Node request underneath, and the
 * hand-over to a handler that writes its own answer.
 */
@Injectable()
export class HttpExchange {
  /** The adapter's platform, found on first use (the adapter is chosen before the app exists). */
  private running?: HttpPlatform;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  setHeader(res: object, name: string, value: string | number): void {
    this.platform().setHeader(res, name, value);
  }

  /** Each header of `headers` on the adapter's response object (an answer's X-RateLimit-*, ...). */
  setHeaders(res: object, headers: Readonly<Record<string, string | number>>): void {
    const platform = this.platform();
    for (const name in headers) platform.setHeader(res, name, headers[name]);
  }

  nodeRequest(req: object): IncomingMessage {
    return this.platform().nodeRequest(req);
  }

  nodeResponse(res: object): ServerResponse {
    return this.platform().nodeResponse(res);
  }

  /**
   * Every value of a header as received, in order (Node's `headers` keeps only the first of
   * several `Authorization`); `name` in lower case. Read from the raw list: `headersDistinct`
   * would build a list for every header of the request.
   */
  headerValues(req: object, name: string): string[] {
    const raw = this.nodeRequest(req).rawHeaders;
    const values: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i].length === name.length && raw[i].toLowerCase() === name) values.push(raw[i + 1]);
    }
    return values;
  }

  /** The request path, without its query. */
  path(req: object): string {
    return pathOf(this.adapterHost.httpAdapter.getRequestUrl(req) as string);
  }

  takeOver(req: object, res: object): NodeExchange {
    return this.platform().takeOver(req, res);
  }

  private platform(): HttpPlatform {
    return (this.running ??= httpPlatform(
      this.adapterHost.httpAdapter.getType() as HttpAdapterName,
    ));
  }
}
