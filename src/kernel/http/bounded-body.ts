/** An answer longer than its limit: the rest of it was not read. */
export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`an answer longer than ${maxBytes} bytes`);
  }
}

/**
 * The answer's body, unless it is longer than `maxBytes` (declared by Content-Length or found while
 * reading): then a TooLarge, and the rest is not read (the stream cancelled). Node's fetch has no
 * limit of its own on a body's size.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new TooLarge(maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw new TooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length);
}
