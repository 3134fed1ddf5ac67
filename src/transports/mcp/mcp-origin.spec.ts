import type { IncomingMessage } from 'node:http';
import { loadSettings, originOf, SettingsError } from '../../kernel/settings/settings';
import { mcpOriginGate, ORIGIN_NOT_ALLOWED } from './mcp-origin';

describe('MCP_ALLOWED_ORIGINS', () => {
  const origins = (raw?: string) => loadSettings({ MCP_ALLOWED_ORIGINS: raw }).mcpAllowedOrigins;

  it('is empty by default: every browser origin is refused', () => {
    expect(origins()).toEqual([]);
  });

  it('keeps origins in their normal form', () => {
    expect(origins(' https://App.Example.com , http://localhost:5173/,http://a.b:80, *')).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
      'http://a.b',
      '*',
    ]);
  });

  it.each(['https://a.b/path', 'a.b', 'null', 'file:///tmp', 'https://u:p@a.b'])(
    'refuses %s at start-up',
    (entry) => {
      expect(() => origins(entry)).toThrow(SettingsError);
      expect(() => origins(entry)).toThrow(/MCP_ALLOWED_ORIGINS/);
    },
  );

  it('reads an Origin header as an origin or nothing', () => {
    expect(originOf('HTTPS://Agent.Example:443')).toBe('https://agent.example');
    expect(originOf('null')).toBeUndefined();
    expect(originOf('garbage')).toBeUndefined();
  });
});

describe('mcpOriginGate', () => {
  const run = (allowed: string, origin?: string, url = '/mcp'): unknown => {
    const gate = mcpOriginGate(loadSettings({ MCP_ALLOWED_ORIGINS: allowed }), (path) =>
      /^\/mcp\/?$/i.test(path),
    );
    const req = { url, headers: origin === undefined ? {} : { origin } } as IncomingMessage;
    return gate(req) ?? true;
  };
  const refused = { status: 403, detail: ORIGIN_NOT_ALLOWED };

  it('lets requests without Origin through: programs, not browsers', () => {
    expect(run('')).toBe(true);
  });

  it('lets an allowed origin through and refuses others with 403', () => {
    expect(run('https://agent.example', 'https://agent.example')).toBe(true);
    expect(run('https://agent.example', 'https://agent.example.evil.com')).toEqual(refused);
    expect(run('https://agent.example', 'https://agent.example.evil.com', '/MCP/?x=1')).toEqual(
      refused,
    );
  });

  it('leaves other paths to CORS', () => {
    expect(run('https://agent.example', 'https://evil.example', '/api/v1/services')).toBe(true);
  });

  it('lets any origin through with *', () => {
    expect(run('*', 'https://anything.example')).toBe(true);
  });
});
