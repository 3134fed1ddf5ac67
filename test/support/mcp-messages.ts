/** A 2025-06-18 client's `initialize` request, as raw clients of the tests send it. */
export function initializeRequest(id: string | number = 1): object {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  };
}
