import { Global, Module } from '@nestjs/common';
import { HttpExchange } from './http-exchange';
import { RouteTable } from './route-table';

/** The adapter-neutral view of requests and routes, for guards, filters and controllers anywhere. */
@Global()
@Module({ providers: [HttpExchange, RouteTable], exports: [HttpExchange, RouteTable] })
export class HttpPlumbingModule {}
