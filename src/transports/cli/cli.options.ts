import { InvalidArgumentError } from 'commander';
import {
  DEFAULT_SCOPE_TEMPLATE,
  KNOWN_SCOPES,
  SCOPE_MEANINGS,
  SCOPE_TEMPLATES,
  TOOL_SCOPE_PREFIX,
  WILDCARD_SCOPES,
} from '../../kernel/auth/scopes';

export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a whole number >= ${min}`
          : `expected a whole number from ${min} to ${max}`,
      );
    return Number(raw);
  };
}

/** A limit, or `none`: the plan's (kept as 'none': commander turns a parsed null into ''). */
export function limitOrNone(min: number) {
  const number = wholeNumber(min);
  return (raw: string): number | 'none' => (raw === 'none' ? 'none' : number(raw));
}

export function noneAsNull(value: number | 'none' | undefined): number | null | undefined {
  return value === 'none' ? null : value;
}

export function scopeList(raw: string | undefined): string[] | undefined {
  return raw
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The scopes a key can hold and the templates, read from src/kernel/auth/scopes.ts, for the `--help` of
 * the commands that grant them: a newcomer's first guess at a scope is a tool's name.
 */
export function scopesHelp(command: 'create' | 'update', tools: readonly string[]): string {
  const row = (name: string, meaning: string) => `  ${name.padEnd(25)}${meaning}`;
  const wildcard = (scope: string) =>
    scope === '*' ? 'every scope' : `every ${scope.slice(0, -1)}... scope`;
  const isDefault = (name: string) => command === 'create' && name === DEFAULT_SCOPE_TEMPLATE;
  return [
    '',
    'Scopes (--scopes, comma-separated):',
    ...KNOWN_SCOPES.map((scope) => row(scope, SCOPE_MEANINGS[scope])),
    row(`${TOOL_SCOPE_PREFIX}<tool>`, `one tool's calls only, of ${[...tools].sort().join(', ')}`),
    ...WILDCARD_SCOPES.map((scope) => row(scope, wildcard(scope))),
    command === 'create'
      ? 'Templates (--template):'
      : 'Templates (of keys create --template; here, give their scopes):',
    ...Object.entries(SCOPE_TEMPLATES).map(([name, scopes]) =>
      row(name, `${scopes.join(',')}${isDefault(name) ? ' (the default)' : ''}`),
    ),
  ].join('\n');
}
