import { LABEL_PATTERN, labelProblem, plural, printable } from './text';

const REFUSED = [
  ['\u001b[2J', 'U+001B'],
  ['row\r\nforged', 'U+000D'],
  ['tab\there', 'U+0009'],
  ['nul\u0000', 'U+0000'],
  ['del\u007f', 'U+007F'],
  ['csi\u009b', 'U+009B'],
  ['price \u202e01$', 'U+202E'],
  ['\u202aembedded', 'U+202A'],
  ['\u2066isolated\u2069', 'U+2066'],
  ['\u2069', 'U+2069'],
  ['lone \ud800', 'U+D800'],
  ['\udc00 lone', 'U+DC00'],
  ['reversed \ude00\ud83d', 'U+DE00'],
] as const;

const ACCEPTED = ['ci-runner', 'Zoë', '😀', 'é\u0301', '❤️', '\u200f', ' spaced ', '\\u001b'];

describe('labels', () => {
  it.each(REFUSED)('refuses %j, naming %s', (text, named) => {
    expect(labelProblem(text)).toBe(
      `Control characters, bidi controls and lone surrogates are not allowed (found ${named})`,
    );
  });

  it.each(ACCEPTED)('accepts %j', (text) => {
    expect(labelProblem(text)).toBeUndefined();
  });

  it('publishes the same rule as a JSON Schema pattern, with or without the u flag', () => {
    for (const flags of ['u', '']) {
      const pattern = new RegExp(LABEL_PATTERN, flags);
      expect(REFUSED.filter(([text]) => pattern.test(text))).toEqual([]);
      expect(ACCEPTED.filter((text) => !pattern.test(text))).toEqual([]);
    }
  });
});

describe('printable', () => {
  it('shows every refused character as a visible escape, and nothing else changes', () => {
    expect(printable('\u001b[2J\u001b]0;pwned\u0007')).toBe('\\u001b[2J\\u001b]0;pwned\\u0007');
    expect(printable('a\r\nb\tc\u0000')).toBe('a\\r\\nb\\tc\\u0000');
    expect(printable('\u202e\u2066\u0085\ud800')).toBe('\\u202e\\u2066\\u0085\\ud800');
    for (const text of ACCEPTED) expect(printable(text)).toBe(text);
  });

  it('keeps JSON valid and equal: what JSON.stringify leaves raw becomes a JSON escape', () => {
    const value = { name: '\u0085\u009b\u202e\u2066\u001b\ud800😀', n: 1 };
    const json = printable(JSON.stringify(value));
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('plural', () => {
  it('says 1 second, 2 seconds, 0 seconds', () => {
    expect([plural(1, 'second'), plural(2, 'second'), plural(0, 'second')]).toEqual([
      '1 second',
      '2 seconds',
      '0 seconds',
    ]);
  });
});
