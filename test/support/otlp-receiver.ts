import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';

/** One span as an OTLP receiver decodes it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  resource: Record<string, unknown>;
  scope?: string;
  name: string;
  /** OTLP's names: SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL. */
  kind: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
  /** Its events: a SQLite statement's name and attributes, with the default span detail. */
  events: { name: string; attributes: Record<string, unknown> }[];
  status?: { code?: string; message?: string };
}

interface AnyValue {
  stringValue?: string;
  intValue?: string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface RawSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: string;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
  events?: { name: string; attributes?: KeyValue[] }[];
  status?: { code?: string; message?: string };
}
interface RawRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: RawSpan[] }[];
  }[];
}

// The OTLP protos (open-telemetry/opentelemetry-proto v1.11.0, Apache-2.0), vendored: no published
// package carries them, and none decodes an ExportTraceServiceRequest through a public API.
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(__dirname, 'otlp', target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const ExportTraceServiceRequest = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
);

const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const valueOf = (v: AnyValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributes = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** The spans of one OTLP/HTTP protobuf export, as the exporter really sent them. */
export function decodeTraces(body: Buffer): ReceivedSpan[] {
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
    longs: String,
    enums: String,
    bytes: String,
  }) as RawRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        resource: attributes(resourceSpans.resource?.attributes),
        scope: scopeSpans.scope?.name,
        name: span.name,
        kind: span.kind,
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: span.parentSpanId ? hex(span.parentSpanId) : undefined,
        links: (span.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
        attributes: attributes(span.attributes),
        events: (span.events ?? []).map((e) => ({
          name: e.name,
          attributes: attributes(e.attributes),
        })),
        status: span.status,
      })),
    ),
  );
}

/**
 * An OTLP/HTTP receiver on loopback, as a collector would be: it keeps every export of traces it
 * is sent (`POST /v1/traces`, protobuf) and answers 200.
 */
export class OtlpReceiver {
  private constructor(
    private readonly server: Server,
    private readonly exports: { contentType: string; body: Buffer }[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const exports: { contentType: string; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces') {
          exports.push({
            contentType: req.headers['content-type'] ?? '',
            body: Buffer.concat(chunks),
          });
        }
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    // Idle connections kept longer than the exporter keeps them: a socket the receiver closes (Node's
    // 5 s default) just as the exporter reuses it fails that export, and the SDK drops its spans.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new OtlpReceiver(server, exports);
  }

  /** Its base address, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How many exports it was sent. */
  get received(): number {
    return this.exports.length;
  }

  /** Every span of every export so far. */
  spans(): ReceivedSpan[] {
    return this.exports.flatMap(({ body }) => decodeTraces(body));
  }

  /** The raw bytes of every export, to look for what must never be in one. */
  raw(): string {
    return this.exports.map(({ body }) => body.toString('latin1')).join('\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
