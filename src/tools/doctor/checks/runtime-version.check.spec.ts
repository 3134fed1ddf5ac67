import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_NODE, runtimeOutcome, satisfiesMinimum } from './runtime-version.check';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe('runtime version check', () => {
  it.each([
    ['22.15.0', true],
    ['22.23.5', true],
    ['v24.0.0', true],
    ['24.22.3', true],
    ['22.14.9', false],
    ['22.1.0', false],
    ['20.20.2', false],
    ['18.20.0', false],
  ])('%s satisfies 22.15: %s', (version, ok) => {
    expect(satisfiesMinimum(version)).toBe(ok);
  });

  it('fails with an actionable message on an old runtime', () => {
    expect(runtimeOutcome('20.20.2')).toEqual({
      status: 'fail',
      message: 'Node.js 20.20.2 is older than 22.15.0; upgrade Node.js to 22.15.0 or later',
    });
    expect(runtimeOutcome('24.22.3').status).toBe('pass');
  });

  it('is the minimum package.json and scripts/node-versions name', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE[0]}.${MIN_NODE[1]}`);
    const versions = readFileSync(join(ROOT, 'scripts', 'node-versions'), 'utf8');
    expect(versions).toMatch(new RegExp(`^NODE_MINIMUM=${MIN_NODE.join('\\.')}$`, 'm'));
  });
});
