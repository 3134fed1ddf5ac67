import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
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
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  setHeader(res: object, name: string, value: string | number): void {
    this.platform().setHeader(res, name, value);
  }

  nodeRequest(req: object): IncomingMessage {
    return this.platform().nodeRequest(req);
  }

  /** The request path, without its query. */
  path(req: object): string {
    return pathOf(this.adapterHost.httpAdapter.getRequestUrl(req) as string);
  }

  takeOver(req: object, res: object): NodeExchange {
    return this.platform().takeOver(req, res);
  }

  private platform(): HttpPlatform {
    return httpPlatform(this.adapterHost.httpAdapter.getType() as HttpAdapterName);
  }
}
