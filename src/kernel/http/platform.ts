import type { INestApplication } from '@nestjs/common';
import type { HttpPlatform } from './plumbing';

export type HttpAdapterName = HttpPlatform['name'];

/**
 * Each platform is loaded when first asked for: a process serves on one adapter, and the CLI on
 * none, so neither loads the other's framework (about 0.15 s of a start-up each).
 */
const PLATFORMS: Record<HttpAdapterName, () => HttpPlatform> = {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on use, see above */
  express: () => (require('./express') as typeof import('./express')).expressPlatform,
  fastify: () => (require('./fastify') as typeof import('./fastify')).fastifyPlatform,
  /* eslint-enable @typescript-eslint/no-require-imports */
};

/** The platform of HTTP_ADAPTER. */
export function httpPlatform(name: HttpAdapterName): HttpPlatform {
  return PLATFORMS[name]();
}

/** The platform an application was created on. */
export function platformOf(app: INestApplication): HttpPlatform {
  return httpPlatform(app.getHttpAdapter().getType() as HttpAdapterName);
}
