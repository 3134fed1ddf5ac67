import { Global, Module, Provider } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { Store, storage } from 'nestjs-pino/storage';
import pino, { Bindings, DestinationStream } from 'pino';
import { Options, pinoHttp } from 'pino-http';
import type { ApiRequest } from '../auth/authenticated-key';
import { LOG_DESTINATION, LogControl, PINO } from './log-control';
import { LoggingConfigSync } from './logging-config.sync';

/** Never written to a log, whatever logs them. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  '*.key',
];

function createPino(destination: DestinationStream, control: LogControl) {
  return pino(
    {
      // Everything reaches the hook, which writes what LogControl's live level lets through.
      level: 'trace',
      hooks: {
        logMethod(args, method, level) {
          if (control.writes(level)) method.apply(this, args);
        },
      },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** The pino instance and its live controls, writing to a file descriptor (1: stdout, 2: stderr). */
function logCoreProviders(fd: 1 | 2): Provider[] {
  return [
    // stderr is written synchronously: a CLI process may exit right after logging.
    { provide: LOG_DESTINATION, useFactory: () => pino.destination({ dest: fd, sync: fd === 2 }) },
    LogControl,
    LoggingConfigSync,
    { provide: PINO, inject: [LOG_DESTINATION, LogControl], useFactory: createPino },
  ];
}

/** The pino instance and its live controls; tests swap LOG_DESTINATION to read what is logged. */
@Global()
@Module({ providers: logCoreProviders(1), exports: [PINO, LogControl, LOG_DESTINATION] })
export class LogCoreModule {}

/** The same, on stderr: for a process whose stdout carries a protocol (the stdio MCP server). */
@Global()
@Module({ providers: logCoreProviders(2), exports: [PINO, LogControl, LOG_DESTINATION] })
export class StderrLogCoreModule {}

/** Options of the access logger: request id, key id (never the key), one line per request when verbose. */
function httpLoggerOptions(logger: pino.Logger, control: LogControl): Options {
  return {
    logger,
    genReqId: (req: IncomingMessage) => (req as ApiRequest).id,
    // One access line per request, only while `logging.verbose` is on.
    autoLogging: { ignore: () => !control.verbose },
    // Nothing until a key is known: pino-http makes a child logger per request for any object
    // returned here, even an empty one (measured: 7% of a tool call). The access line, written
    // at the end, gets the key id.
    customProps: (req: IncomingMessage) => {
      const key = (req as ApiRequest).apiKey;
      return (key ? { key_id: key.id } : undefined) as Bindings;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        // A key pasted into a query string by mistake is still a secret.
        url: req.url.replace(/sk_[0-9a-z]+/gi, 'sk_[REDACTED]'),
        remote_address: req.remoteAddress,
      }),
      res: (res: ServerResponse) => ({ status_code: res.statusCode }),
    },
  };
}

/**
 * Runs `next` with the request's logger (pino-http's `req.log`) as the one PinoLogger writes to, as
 * nestjs-pino's own middleware does on Express: on Fastify, its middleware's scope ends at body parsing.
 */
export function bindRequestLogger(req: IncomingMessage, next: () => void): void {
  const log = (req as IncomingMessage & { log?: pino.Logger }).log;
  if (log) storage.run(new Store(log), next);
  else next();
}

/**
 * The pino-http middleware. configureApp installs it first thing, right after the request id, so
 * that every request is logged, including those answered before Nest routes them (415, 413,
 * malformed JSON, the docs); nestjs-pino then binds its request logger (`useExisting`).
 */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/** JSON-line logs through nestjs-pino: request ids, key ids (never keys), a live level. */
@Module({
  imports: [
    LogCoreModule,
    LoggerModule.forRootAsync({
      imports: [LogCoreModule],
      inject: [PINO],
      useFactory: (logger: pino.Logger) => ({ pinoHttp: { logger }, useExisting: true }),
    }),
  ],
  providers: [
    {
      provide: HTTP_LOGGER,
      inject: [PINO, LogControl],
      useFactory: (logger: pino.Logger, control: LogControl) =>
        pinoHttp(httpLoggerOptions(logger, control)),
    },
  ],
  exports: [LogCoreModule, HTTP_LOGGER],
})
export class LoggingModule {}

/**
 * The same JSON lines on stderr, for the stdio MCP server: stdout carries the protocol and nothing
 * else. No HTTP here, so no request fields.
 */
@Module({
  imports: [
    StderrLogCoreModule,
    LoggerModule.forRootAsync({
      imports: [StderrLogCoreModule],
      inject: [PINO],
      useFactory: (logger: pino.Logger) => ({ pinoHttp: { logger } }),
    }),
  ],
  exports: [StderrLogCoreModule],
})
export class StderrLoggingModule {}
