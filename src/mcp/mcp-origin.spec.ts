import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error';
import { loadSettings, originOf, SettingsError } from '../settings/settings';
import { McpOriginMiddleware } from './mcp-origin.middleware';

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

describe('McpOriginMiddleware', () => {
  const run = (allowed: string, origin?: string): unknown => {
    const middleware = new McpOriginMiddleware(loadSettings({ MCP_ALLOWED_ORIGINS: allowed }));
    const req = { headers: origin === undefined ? {} : { origin } } as IncomingMessage;
    let passed = false;
    try {
      middleware.use(req, {} as ServerResponse, () => (passed = true));
    } catch (error) {
      return error;
    }
    return passed;
  };

  it('lets requests without Origin through: programs, not browsers', () => {
    expect(run('')).toBe(true);
  });

  it('lets an allowed origin through and refuses others with 403', () => {
    expect(run('https://agent.example', 'https://agent.example')).toBe(true);
    const refused = run('https://agent.example', 'https://agent.example.evil.com');
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).getStatus()).toBe(403);
  });

  it('lets any origin through with *', () => {
    expect(run('*', 'https://anything.example')).toBe(true);
  });
});
