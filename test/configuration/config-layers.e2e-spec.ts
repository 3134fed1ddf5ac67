import { join } from 'node:path';
import { LogControl } from '../../src/logging/log-control';
import { ConfigurationService } from '../../src/configuration/configuration.service';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { executeKey, overrides, tool, writeConfigFile } from '../support/config';

describe('configuration layers: defaults, CONFIG_FILE, overrides, environment (e2e)', () => {
  let t: TestApp;
  let key: string;
  const fileSecret = 'file-secret-value-42';
  const get = (k: string) => tool(t, key, 'config_get', { key: k });
  const set = (k: string, value: string) => tool(t, key, 'config_set', { key: k, value });

  // Some of these set overrides: each test gets an app of its own.
  beforeEach(async () => {
    const dataDir = tempDataDir();
    const configFile = writeConfigFile(
      dataDir,
      [
        'limits:            # the operator section: not part of the tree',
        '  plans:',
        '    free: {daily_limit: 7}',
        'logging:',
        '  level: WARN',
        '  verbose: false',
        'llm_config:',
        '  cache_enabled: false',
        `  api_key: ${fileSecret}`,
        'server:',
        '  host: 127.0.0.1',
        '  port: "9100"',
      ].join('\n'),
    );
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: configFile,
        PORT: '9200',
        APP__LLM_CONFIG__CACHE_ENABLED: 'Yes',
        HOST: '',
      },
    });
    key = await executeKey(t);
  });
  afterEach(() => t.close());

  it('layers them lowest first, the environment winning', async () => {
    const { config } = (await tool(t, key, 'config_show', {})).body;
    // The service's own sections; the registered tools' sections (if any) are beside them.
    const { llm_config, logging, server } = config as Record<string, unknown>;
    expect({ llm_config, logging, server }).toEqual({
      llm_config: {
        cache_enabled: true,
        cache_dir: join(t.dataDir, 'cache'),
        api_key: '********',
      },
      logging: { level: 'warn', verbose: false },
      server: { host: '127.0.0.1', port: 9200 },
    });
    expect(t.app.get(ConfigurationService).listenAddress()).toEqual({
      host: '127.0.0.1',
      port: 9200,
    });
    expect(t.app.get(LogControl).level).toBe('warn');
    const where = async (k: string) => {
      const { layer, variable } = await t.app.get(ConfigurationService).resolve(k);
      return { layer, variable };
    };
    expect(await where('llm_config.cache_dir')).toEqual({
      layer: 'default',
      variable: undefined,
    });
    expect(await where('logging.level')).toEqual({ layer: 'file', variable: undefined });
    expect(await where('server.port')).toEqual({ layer: 'env', variable: 'PORT' });
    expect(await where('llm_config.cache_enabled')).toEqual({
      layer: 'env',
      variable: 'APP__LLM_CONFIG__CACHE_ENABLED',
    });
  });

  it('an override beats the file', async () => {
    expect((await set('logging.level', 'error')).status).toBe(200);
    expect((await get('logging.level')).body.value).toBe('error');
    expect(t.app.get(LogControl).level).toBe('error');
    expect((await set('server.host', 'localhost')).status).toBe(200);
    expect((await get('server.host')).body.value).toBe('localhost');
  });

  it.each([
    ['server.port', '9300', 'PORT'],
    ['llm_config.cache_enabled', 'no', 'APP__LLM_CONFIG__CACHE_ENABLED'],
  ])('a key pinned by the environment cannot be set: %s -> 409', async (k, value, variable) => {
    const before = await overrides(t);
    const res = await set(k, value);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `Configuration key '${k}' is pinned by the environment variable ${variable}; change ${variable} and restart instead`,
    });
    expect(await overrides(t)).toEqual(before);
    expect(Object.hasOwn(await overrides(t), k)).toBe(false);
  });

  it('never writes the file secret to a log', async () => {
    expect((await tool(t, key, 'config_show', {})).status).toBe(200);
    expect((await get('llm_config')).status).toBe(200);
    expect((await get('llm_config.api_key')).status).toBe(200);
    expect(t.logs.text()).not.toContain(fileSecret);
  });

  it('leaves the limits section to the operator settings', async () => {
    expect((await get('limits')).status).toBe(404);
    const reader = await t.createKey({ name: 'free one' });
    const usage = await t.http().get('/api/v1/usage').set(bearer(reader));
    expect(usage.body.daily_limit).toBe(7);
  });
});
