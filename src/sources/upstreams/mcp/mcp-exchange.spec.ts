import {
  Exchange,
  isInvalidAnswer,
  MAX_MESSAGE_DEPTH,
  MessageMeter,
  within,
  currentExchange,
} from './mcp-exchange';
import { UpstreamError } from '../upstream';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('MessageMeter', () => {
  it('bounds a JSON body whole, across its chunks', () => {
    const meter = new MessageMeter(false, 10);
    expect(meter.read(bytes('{"a":"12'))).toBeUndefined();
    expect(meter.read(bytes('34"}'))).toBe('size');
  });

  it('bounds each SSE event on its own: a stream of small events is never cut', () => {
    const meter = new MessageMeter(true, 40);
    const event = 'event: message\ndata: {"a":1}\n\n';
    for (let i = 0; i < 1000; i++) expect(meter.read(bytes(event))).toBeUndefined();
    expect(meter.read(bytes(`data: "${'x'.repeat(40)}"\n\n`))).toBe('size');
  });

  it('counts nesting outside strings only', () => {
    const deep = '['.repeat(MAX_MESSAGE_DEPTH + 1);
    expect(new MessageMeter(false, 1e6).read(bytes(`"${deep}"`))).toBeUndefined();
    expect(new MessageMeter(false, 1e6).read(bytes(`"\\"${deep}`))).toBeUndefined();
    expect(new MessageMeter(false, 1e6).read(bytes(deep))).toBe('depth');
    expect(new MessageMeter(false, 1e6).read(bytes('[]'.repeat(1000)))).toBeUndefined();
  });

  it('lets a malformed SSE event not hide the next one: a line ends its strings, an event its depth', () => {
    const meter = new MessageMeter(true, 1e6);
    expect(meter.read(bytes(`data: {"open\n\ndata: ${'{'.repeat(100)}\n\n`))).toBeUndefined();
    expect(meter.read(bytes(`data: ${'{'.repeat(100)}\n\n`))).toBeUndefined();
    expect(meter.read(bytes(`data: ${'{'.repeat(MAX_MESSAGE_DEPTH + 1)}\n\n`))).toBe('depth');
  });
});

describe('Exchange', () => {
  it('keeps the first fault and aborts its signal with it', () => {
    const exchange = new Exchange(100);
    const first = new UpstreamError('too_large', 'first');
    exchange.fail(first);
    exchange.fail(new UpstreamError('protocol', 'second'));
    expect(exchange.fault).toBe(first);
    expect(exchange.signal.aborted).toBe(true);
    expect(exchange.signal.reason).toBe(first);
  });

  it('follows the caller’s signal, and is found within its async context', async () => {
    const caller = new AbortController();
    const exchange = new Exchange(100, caller.signal);
    const found = await within(exchange, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentExchange();
    });
    expect(found).toBe(exchange);
    expect(currentExchange()).toBeUndefined();
    caller.abort();
    expect(exchange.signal.aborted).toBe(true);
    expect(exchange.fault).toBeUndefined();
  });
});

describe('isInvalidAnswer', () => {
  it('knows what says an answer was not JSON-RPC', () => {
    let parseError: unknown;
    try {
      JSON.parse('{not json');
    } catch (error) {
      parseError = error;
    }
    expect(isInvalidAnswer(parseError)).toBe(true);
    expect(isInvalidAnswer(new Error('Received a response for an unknown message ID: {}'))).toBe(
      true,
    );
    expect(isInvalidAnswer(Object.assign(new Error('[]'), { name: 'ZodError' }))).toBe(true);
    expect(isInvalidAnswer(new TypeError('fetch failed'))).toBe(false);
    expect(isInvalidAnswer('text')).toBe(false);
  });
});
