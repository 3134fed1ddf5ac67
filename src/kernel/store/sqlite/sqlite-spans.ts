import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type Database from 'better-sqlite3';
import { inRecordingSpan, tracingOn } from '../../common/tracing-gate';

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

/**
 * The connection as it is, or, when tracing is on, one whose statements each run in a CLIENT span
 * named by statementName, as a child of the recorded span they run in (docs/observability.md).
 * Off, nothing is wrapped: nothing is paid.
 */
export function tracedConnection(db: Database.Database): Database.Database {
  if (!tracingOn) return db;
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
      'db.system.name': 'sqlite',
      'db.operation.name': operation,
      'db.query.summary': name,
      ...(table === undefined ? {} : { 'db.collection.name': table }),
    };
    for (const method of RUNS) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: (...args: unknown[]) => {
          if (!inRecordingSpan()) return original(...args);
          const span = tracer.startSpan(
            name,
            { kind: SpanKind.CLIENT, attributes },
            context.active(),
          );
          try {
            return original(...args);
          } catch (error) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.setAttribute('error.type', (error as { code?: string }).code ?? '_OTHER');
            throw error;
          } finally {
            span.end();
          }
        },
      });
    }
    return statement;
  }) as typeof db.prepare;
  return db;
}
