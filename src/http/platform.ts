import type { INestApplication } from '@nestjs/common';
import { expressPlatform } from './express';
import { fastifyPlatform } from './fastify';
import type { HttpPlatform } from './plumbing';

export type HttpAdapterName = HttpPlatform['name'];

const PLATFORMS: Record<HttpAdapterName, HttpPlatform> = {
  express: expressPlatform,
  fastify: fastifyPlatform,
};

/** The platform of HTTP_ADAPTER. */
export function httpPlatform(name: HttpAdapterName): HttpPlatform {
  return PLATFORMS[name];
}

/** The platform an application was created on. */
export function platformOf(app: INestApplication): HttpPlatform {
  return httpPlatform(app.getHttpAdapter().getType() as HttpAdapterName);
}
