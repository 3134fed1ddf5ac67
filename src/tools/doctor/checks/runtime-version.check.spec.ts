import { runtimeOutcome, satisfiesMinimum } from './runtime-version.check';

describe('runtime version check', () => {
  it.each([
    ['20.19.0', true],
    ['20.20.2', true],
    ['22.1.0', true],
    ['v24.0.0', true],
    ['20.18.9', false],
    ['18.20.0', false],
  ])('%s satisfies 20.19: %s', (version, ok) => {
    expect(satisfiesMinimum(version)).toBe(ok);
  });

  it('fails with an actionable message on an old runtime', () => {
    expect(runtimeOutcome('18.0.0')).toEqual({
      status: 'fail',
      message: 'Node.js 18.0.0 is older than 20.19.0; upgrade Node.js to 20.19.0 or later',
    });
    expect(runtimeOutcome('20.20.2').status).toBe('pass');
  });
});
