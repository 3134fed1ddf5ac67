import {
  type Context,
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type Database from 'better-sqlite3';
import { inRecordingSpan, type SpanDetail } from '../../common/tracing-gate';

const tracer = trace.getTracer('tool-invocation-service');

/** The methods of a statement that run it. */
const RUNS = ['run', 'get', 'all', 'iterate'] as const;

/**
 * A statement's name, as OpenTelemetry's database conventions summarise a query: its operation
 * and its table (`SELECT api_keys`, `INSERT usage_counters`, `PRAGMA data_version`); never its
 * text or its parameters.
 */
export function statementName(sql: string): { operation: string; table?: string } {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table =
    operation === 'PRAGMA'
      ? /^\s*PRAGMA\s+(\w+)/i.exec(sql)?.[1]
      : /\b(?:FROM|INTO|UPDATE|TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?["`[]?(\w+)/i.exec(sql)?.[1];
  return { operation, table };
}

/** What a connection's statements and writes are made of, when tracing is on. */
const SQLITE = { 'db.system.name': 'sqlite' } as const;

/**
 * The connection, whose statements each run (when their call is recorded) as an event of the span
 * they run in (`calls`, the default: a store's transaction or round trip is the span, its
 * statements its events), or in a CLIENT span of their own (`statements`): named by
 * statementName, never by their text or parameters (docs/observability.md).
 */
export function recordingConnection(db: Database.Database, detail: SpanDetail): Database.Database {
  const prepare = db.prepare.bind(db) as (
    sql: string,
    ...internal: unknown[]
  ) => Database.Statement;
  // The library's own calls (pragma) pass arguments of their own after the text: passed on.
  db.prepare = ((sql: string, ...internal: unknown[]) => {
    const statement = prepare(sql, ...internal);
    const { operation, table } = statementName(sql);
    const name = table === undefined ? operation : `${operation} ${table}`;
    const attributes = {
      ...SQLITE,
      'db.operation.name': operation,
      'db.query.summary': name,
      ...(table === undefined ? {} : { 'db.collection.name': table }),
    };
    for (const method of RUNS) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      const value =
        detail === 'statements'
          ? (...args: unknown[]) => {
              if (!inRecordingSpan()) return original(...args);
              const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
              try {
                return original(...args);
              } catch (error) {
                span.setStatus({ code: SpanStatusCode.ERROR });
                span.setAttribute('error.type', (error as { code?: string }).code ?? '_OTHER');
                throw error;
              } finally {
                span.end();
              }
            }
          : (...args: unknown[]) => {
              const span = trace.getSpan(context.active());
              if (span?.isRecording()) span.addEvent(name, attributes);
              return original(...args);
            };
      Object.defineProperty(statement, method, { value });
    }
    return statement;
  }) as typeof db.prepare;
  return db;
}

/**
 * A write of a group commit in a CLIENT span `COMMIT` (`db.operation.name`), as a child of the span
 * it was asked for in (`asked`): the call waits for that commit, which is its store's round trip.
 * Its statements are its events (or spans of their own). A write asked for outside any recorded
 * span makes none.
 */
export function recordingWrite<T>(asked: Context | undefined, run: () => T): T {
  if (asked === undefined || trace.getSpan(asked)?.isRecording() !== true) {
    return context.with(ROOT_CONTEXT, run);
  }
  const span = tracer.startSpan(
    'COMMIT',
    { kind: SpanKind.CLIENT, attributes: { ...SQLITE, 'db.operation.name': 'COMMIT' } },
    asked,
  );
  try {
    return context.with(trace.setSpan(asked, span), run);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', (error as { code?: string }).code ?? '_OTHER');
    throw error;
  } finally {
    span.end();
  }
}
