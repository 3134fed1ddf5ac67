import { Global, Module, Provider } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import pino, { Bindings, DestinationStream } from 'pino';
import { Options, pinoHttp } from 'pino-http';
import { AUDIT_LOG_FIELD } from '../audit';
import type { ApiRequest } from '../subjects';
import { callerLogField, requestView } from '../kernel/http/request-log';
import { LOG_DESTINATION, LogControl, PINO } from './log-control';
import { LoggingConfigSync } from './logging-config.sync';
import { spans } from '../tracing';

/** Never written to a log, whatever logs them. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  '*.key',
];

/** A line that records an audit entry: written at any live level (see AUDIT_LOG_FIELD). */
function isAuditLine(args: unknown[]): boolean {
  const first = args[0];
  return typeof first === 'object' && first !== null && AUDIT_LOG_FIELD in first;
}

function createPino(destination: DestinationStream, control: LogControl) {
  return pino(
    {
      // Everything reaches the hook, which writes what LogControl's live level lets through.
      level: 'trace',
      hooks: {
        logMethod(args, method, level) {
          if (control.writes(level) || isAuditLine(args)) method.apply(this, args);
        },
      },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      // The ids of the span a line is written in, when tracing is on (docs/observability.md).
      ...(spans.logFields ? { mixin: spans.logFields } : {}),
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

/** Options of the access logger: request id, key or principal id (never a secret), one line at the end. */
function httpLoggerOptions(logger: pino.Logger): Options {
  return {
    logger,
    genReqId: (req: IncomingMessage) => (req as ApiRequest).id,
    customProps: (req: IncomingMessage) => callerLogField((req as ApiRequest).caller) as Bindings,
    serializers: {
      req: (req: { raw: IncomingMessage }) => requestView(req.raw),
      res: (res: ServerResponse) => ({ status_code: res.statusCode }),
    },
  };
}

/** What the HTTP adapters ask of logging, per request (src/kernel/http/plumbing.ts). */
export interface RequestLogging {
  /** First thing: while `logging.verbose` is on, one access line when the answer is sent. */
  start(req: IncomingMessage, res: ServerResponse): void;
}

function requestLogging(logger: pino.Logger, control: LogControl): RequestLogging {
  const accessLog = pinoHttp(httpLoggerOptions(logger));
  return {
    start: (req, res) => {
      if (control.verbose) accessLog(req, res);
    },
  };
}

/**
 * The request logging of the HTTP adapters: the access line, verbose only (src/kernel/http/). nestjs-pino's
 * own middleware is not mounted, and no line is bound to its request through an async context:
 * the lines that name one (errors) carry requestLogFields.
 */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/** JSON-line logs through nestjs-pino: request ids, key ids (never keys), a live level. */
@Module({
  imports: [
    LogCoreModule,
    LoggerModule.forRootAsync({
      imports: [LogCoreModule],
      inject: [PINO],
      // No middleware of its own: the adapters bind each request's logger (RequestLogging).
      useFactory: (logger: pino.Logger) => ({ pinoHttp: { logger }, forRoutes: [] }),
    }),
  ],
  providers: [
    {
      provide: HTTP_LOGGER,
      inject: [PINO, LogControl],
      useFactory: requestLogging,
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
