import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP receiver for the `traced` targets, on loopback in the bench's own process: it reads
 * every export to its end and answers it as a collector does (200, an empty
 * ExportTraceServiceResponse), keeping nothing. What a traced target pays is then the exporter's
 * own work against a receiver on the same machine (docs/observability.md, "The cost").
 */
export interface OtlpSink {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Exports received and bytes read, for the report's note. */
  received: () => { exports: number; bytes: number };
  close: () => Promise<void>;
}

export function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  // Idle connections kept longer than the exporter keeps them (see test/support/otlp-receiver.ts).
  server.keepAliveTimeout = 120_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        received: () => ({ exports, bytes }),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}
