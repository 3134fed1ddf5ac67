import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject, PathItemObject } from '@nestjs/swagger';

/**
 * Operations that come and go while the service runs (the tools that sources bring): a transport
 * provides them, and each document served holds them as they are at that moment.
 */
export abstract class LiveOperations {
  /** Counts their changes: what was made for one count is kept until the next. */
  abstract changes(): number;
  /** The paths of the operations now, their schemas inline. */
  abstract paths(): Record<string, PathItemObject>;
}

/** The app's LiveOperations, where a module provides them. */
export function liveOperationsOf(app: INestApplication): LiveOperations | undefined {
  try {
    return app.get(LiveOperations, { strict: false });
  } catch {
    return undefined;
  }
}

/** The document made again when the live operations change, kept between their changes. */
export function servedDocument(
  app: INestApplication,
  add: (document: OpenAPIObject, live: LiveOperations) => OpenAPIObject,
): (document: OpenAPIObject) => OpenAPIObject {
  const live = liveOperationsOf(app);
  let made: { at: number; document: OpenAPIObject } | undefined;
  return (document) => {
    if (!live) return document;
    const at = live.changes();
    if (made?.at !== at) made = { at, document: add(document, live) };
    return made.document;
  };
}
