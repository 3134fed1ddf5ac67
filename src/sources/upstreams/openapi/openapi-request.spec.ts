import type { OpenApiOperation } from './openapi-operations';
import { operationRequest, RequestRefused } from './openapi-request';

const BASE = 'http://127.0.0.1:8001/api/';

function operation(parameters: OpenApiOperation['parameters'], hasBody = false): OpenApiOperation {
  return { name: 'op', method: 'get', path: '/things/{id}', parameters, hasBody };
}

describe('operationRequest', () => {
  const id = { name: 'id', in: 'path' } as const;

  it('encodes path parameters and joins the base URL and the path', () => {
    const request = operationRequest(BASE, operation([id]), { id: 'a/b c?' });
    expect(request.url.href).toBe('http://127.0.0.1:8001/api/things/a%2Fb%20c%3F');
    expect(operationRequest(BASE, operation([id]), { id: [1, 2] }).url.pathname).toBe(
      '/api/things/1,2',
    );
  });

  it('writes query parameters in their style', () => {
    const request = operationRequest(
      BASE,
      operation([
        id,
        { name: 'tag', in: 'query' },
        { name: 'csv', in: 'query', explode: false },
        { name: 'pipes', in: 'query', style: 'pipeDelimited' },
        { name: 'filter', in: 'query', style: 'deepObject', explode: true },
        { name: 'flag', in: 'query' },
        { name: 'absent', in: 'query' },
      ]),
      {
        id: 1,
        tag: ['x', 'y'],
        csv: ['a', 'b'],
        pipes: ['p', 'q'],
        filter: { color: 'red', size: 2 },
        flag: false,
      },
    );
    expect([...request.url.searchParams]).toEqual([
      ['tag', 'x'],
      ['tag', 'y'],
      ['csv', 'a,b'],
      ['pipes', 'p|q'],
      ['filter[color]', 'red'],
      ['filter[size]', '2'],
      ['flag', 'false'],
    ]);
  });

  it('sends header parameters, never one the service owns, and never a line break', () => {
    const headers = operation([
      id,
      { name: 'X-Trace-Tag', in: 'header' },
      { name: 'Authorization', in: 'header' },
      { name: 'Host', in: 'header' },
      { name: 'Transfer-Encoding', in: 'header' },
    ]);
    const request = operationRequest(BASE, headers, {
      id: 1,
      'X-Trace-Tag': ['a', 'b'],
      Authorization: 'Bearer caller',
      Host: 'elsewhere',
      'Transfer-Encoding': 'chunked',
    });
    expect(request.headers).toEqual({ 'x-trace-tag': 'a,b' });
    expect(() => operationRequest(BASE, headers, { id: 1, 'X-Trace-Tag': 'a\r\nHost: b' })).toThrow(
      new RequestRefused('The header parameter X-Trace-Tag cannot hold a line break.'),
    );
  });

  it('sends the body as JSON only when the operation takes one', () => {
    expect(operationRequest(BASE, operation([id], true), { id: 1, body: { a: [1] } }).body).toBe(
      '{"a":[1]}',
    );
    expect(operationRequest(BASE, operation([id], false), { id: 1, body: { a: 1 } }).body).toBe(
      undefined,
    );
  });
});
