import { OverrideStore } from '../../src/configuration/override.store';
import { join } from 'node:path';
import { LogControl } from '../../src/logging/log-control';
import { ConfigurationService } from '../../src/configuration/configuration.service';
import { startApp, TestApp } from '../support/app';
import { executeKey, overrides, tool } from '../support/config';

const debugLines = (t: TestApp) => t.logs.records().filter((r) => r.level === 'debug').length;
const accessLines = (t: TestApp) => t.logs.records().filter((r) => r.msg === 'request completed');

describe('config tools on a fresh app (e2e)', () => {
  let t: TestApp;
  let key: string;
  const show = () => tool(t, key, 'config_show', {});
  const get = (k: unknown) => tool(t, key, 'config_get', { key: k });
  const set = (k: unknown, value: unknown) => tool(t, key, 'config_set', { key: k, value });

  // What these tests read, or are refused, changes nothing: they share one app.
  describe('reading, and refusing what is invalid', () => {
    beforeAll(async () => {
      t = await startApp();
      key = await executeKey(t);
    });
    afterAll(() => t.close());

    it('config_show holds the keys of spec 2.2 with their types and defaults', async () => {
      for (const body of [{}, undefined]) {
        const res = await tool(t, key, 'config_show', body);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(['config']);
        const { config } = res.body;
        expect(config.llm_config.cache_enabled).toBe(true);
        expect(config.logging.verbose).toBe(false);
        expect(config.logging.level).toBe('info');
        expect(config.server.host).toBe('0.0.0.0');
        expect(config.server.port).toBe(8000);
        expect(config.llm_config.cache_dir).toBe(join(t.dataDir, 'cache'));
        expect(config.llm_config.api_key).toBe('');
      }
    });

    it('config_show takes no fields', async () => {
      const res = await tool(t, key, 'config_show', { verbose: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: [
          {
            loc: ['body', 'verbose'],
            msg: 'Extra inputs are not permitted',
            type: 'extra_forbidden',
          },
        ],
      });
    });

    it('config_get with {} answers exactly the entry of spec 7.2', async () => {
      const res = await tool(t, key, 'config_get', {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: [{ loc: ['body', 'key'], msg: 'Field required', type: 'missing' }],
      });
    });

    it('config_get returns a value in its own type, and a section as an object', async () => {
      expect((await get('llm_config.cache_enabled')).body).toEqual({
        key: 'llm_config.cache_enabled',
        value: true,
      });
      expect((await get('server.port')).body).toEqual({ key: 'server.port', value: 8000 });
      const section = await get('logging');
      expect(section.status).toBe(200);
      expect(section.body).toEqual({ key: 'logging', value: { level: 'info', verbose: false } });
    });

    it('config_get of an unknown key is 404', async () => {
      const res = await get('llm_config.nope');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Configuration key 'llm_config.nope' not found" });
    });

    it.each([
      [
        'server.port',
        '70000',
        'less_than_equal',
        "server.port expects an integer from 1 to 65535; got '70000'",
      ],
      [
        'server.port',
        'abc',
        'int_type',
        "server.port expects an integer from 1 to 65535; got 'abc'",
      ],
      [
        'server.port',
        '80.5',
        'int_type',
        "server.port expects an integer from 1 to 65535; got '80.5'",
      ],
      [
        'server.port',
        '0',
        'greater_than_equal',
        "server.port expects an integer from 1 to 65535; got '0'",
      ],
      [
        'logging.level',
        'loud',
        'literal_error',
        "logging.level expects one of trace, debug, info, warn, error, fatal (any case); got 'loud'",
      ],
      [
        'llm_config.cache_enabled',
        'maybe',
        'bool_type',
        "llm_config.cache_enabled expects a boolean (true, false, yes or no, in any case); got 'maybe'",
      ],
      [
        'logging.verbose',
        '1',
        'bool_type',
        "logging.verbose expects a boolean (true, false, yes or no, in any case); got '1'",
      ],
      [
        'server.host',
        'not a host',
        'string_pattern_mismatch',
        "server.host expects a host name or IP address; got 'not a host'",
      ],
      [
        'llm_config.cache_dir',
        '',
        'string_too_short',
        "llm_config.cache_dir expects a string of 1 to 1024 characters; got ''",
      ],
    ])('config_set %s = %j is a 400 %s and stores nothing', async (k, value, type, msg) => {
      const before = await overrides(t);
      const valueBefore = (await get(k)).body.value;
      const res = await set(k, value);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'value'], msg, type }] });
      expect(await overrides(t)).toEqual(before);
      expect((await get(k)).body.value).toEqual(valueBefore);
    });

    it('config_set of a section is a 400 naming its keys', async () => {
      const before = await overrides(t);
      const res = await set('logging', 'debug');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: [
          {
            loc: ['body', 'key'],
            msg: 'logging is a section, not a value: set one of its keys (logging.level, logging.verbose)',
            type: 'value_error',
          },
        ],
      });
      expect(await overrides(t)).toEqual(before);
    });

    it('config_set of an unknown key is 404 and stores nothing', async () => {
      const before = await overrides(t);
      const res = await set('server.timeout', '5');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Configuration key 'server.timeout' not found" });
      expect(await overrides(t)).toEqual(before);
    });

    it.each([
      '__proto__.x',
      '__proto__',
      'constructor.prototype.x',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'server.__proto__',
      'server.constructor',
      'logging.level.toString',
      'logging.level.length',
      'Server.port',
      'server..port',
      'server.port.',
      '.server',
      ' server.port',
      'server.port ',
      'server-port',
      'server/port',
      'server[port]',
      'x'.repeat(200),
    ])('%j resolves to nothing (404) and changes nothing', async (k) => {
      const before = await overrides(t);
      const detail = `Configuration key '${k}' not found`;
      expect((await get(k)).body).toEqual({ detail });
      const res = await set(k, '{"polluted": true}');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail });
      expect(await overrides(t)).toEqual(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('bounds the key and value lengths and types through the schema', async () => {
      expect((await get('x'.repeat(201))).body).toEqual({
        detail: [
          {
            loc: ['body', 'key'],
            msg: 'String should have at most 200 characters',
            type: 'string_too_long',
          },
        ],
      });
      expect((await get('')).body.detail[0].type).toBe('string_too_short');
      expect((await set('server.port', 8080)).body).toEqual({
        detail: [
          { loc: ['body', 'value'], msg: 'Input should be a valid string', type: 'string_type' },
        ],
      });
      expect((await set('server.port', 'x'.repeat(4097))).body.detail[0].type).toBe(
        'string_too_long',
      );
      expect((await tool(t, key, 'config_set', { key: 'server.port' })).body).toEqual({
        detail: [{ loc: ['body', 'value'], msg: 'Field required', type: 'missing' }],
      });
    });

    it('needs services:execute', async () => {
      const reader = await t.createKey({ scope_template: 'read_only' });
      const res = await tool(t, reader, 'config_set', { key: 'server.port', value: '1' });
      expect(res.status).toBe(403);
      expect((await tool(t, reader, 'config_show', {})).status).toBe(403);
    });
  });

  // Each of these writes: each gets an app of its own.
  describe('writing', () => {
    beforeEach(async () => {
      t = await startApp();
      key = await executeKey(t);
    });
    afterEach(() => t.close());

    it('config_set coerces, stores, and config_get / config_show see it at once', async () => {
      const res = await set('llm_config.cache_enabled', ' NO ');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ key: 'llm_config.cache_enabled', coerced_value: false });
      expect((await get('llm_config.cache_enabled')).body.value).toBe(false);
      expect((await show()).body.config.llm_config.cache_enabled).toBe(false);
      expect((await overrides(t))['llm_config.cache_enabled']).toBe(false);

      expect((await set('server.port', '+8081')).body.coerced_value).toBe(8081);
      expect((await get('server.port')).body.value).toBe(8081);
      expect((await set('logging.level', 'WARN')).body.coerced_value).toBe('warn');
      expect((await set('logging.level', 'info')).body.coerced_value).toBe('info');
      // A string-typed key keeps the original string: no integer out of `007`.
      expect((await set('llm_config.cache_dir', '007')).body.coerced_value).toBe('007');
      expect((await get('llm_config.cache_dir')).body.value).toBe('007');
    });

    it('shows a secret that is set as "********", everywhere a client can look', async () => {
      const secret = 'sk-live-0123456789abcdef';
      const res = await set('llm_config.api_key', secret);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ key: 'llm_config.api_key', coerced_value: '********' });
      expect((await get('llm_config.api_key')).body.value).toBe('********');
      expect((await get('llm_config')).body.value.api_key).toBe('********');
      expect((await show()).body.config.llm_config.api_key).toBe('********');
      const long = 'x'.repeat(4096);
      expect((await set('llm_config.api_key', long)).body.coerced_value).toBe('********');
      expect((await overrides(t))['llm_config.api_key']).toBe(long);
      expect(t.logs.text()).not.toContain(secret);
      // The service itself reads the real value.
      expect(await t.app.get(ConfigurationService).get('llm_config.api_key')).toBe(long);
      expect(t.logs.text()).not.toContain(long);
    });

    it('logging.level applies at once: debug lines appear, then disappear', async () => {
      // server.port from the override layer, as the debug line below names it.
      expect((await set('server.port', '8081')).status).toBe(200);
      expect(debugLines(t)).toBe(0);
      expect((await set('logging.level', 'DEBUG')).status).toBe(200);
      expect(t.app.get(LogControl).level).toBe('debug');
      await get('server.port');
      const debug = t.logs.records().filter((r) => r.level === 'debug');
      expect(debug.length).toBeGreaterThan(0);
      expect(debug.map((r) => r.msg)).toContain(
        'Read configuration key server.port from the override layer',
      );

      expect((await set('logging.level', 'info')).status).toBe(200);
      const count = debugLines(t);
      await get('server.port');
      await show();
      expect(debugLines(t)).toBe(count);
    });

    it('logging.verbose turns the access line on and off at once', async () => {
      const before = accessLines(t).length;
      await get('server.port');
      expect(accessLines(t).length).toBe(before);
      await set('logging.verbose', 'yes');
      await get('server.port');
      const lines = accessLines(t);
      expect(lines.length).toBeGreaterThan(before);
      expect(JSON.stringify(lines)).not.toContain(key);
      await set('logging.verbose', 'false'); // this call's own line is written while still on
      const after = accessLines(t).length;
      await get('server.port');
      expect(accessLines(t).length).toBe(after);
    });

    it('concurrent config_set calls leave one written value per key, never a torn state', async () => {
      const levels = ['trace', 'debug', 'info', 'warn', 'error'];
      const dirs = Array.from({ length: 10 }, (_, i) => `cache-${i}`);
      // The value the reads may still see before any of the writes lands.
      expect((await set('llm_config.cache_dir', '007')).status).toBe(200);
      const writes = [
        ...levels
          .flatMap((level) => [level, level.toUpperCase()])
          .map((v) => set('logging.level', v)),
        ...dirs.map((v) => set('llm_config.cache_dir', v)),
      ];
      const reads = Array.from({ length: 5 }, () => show());
      const answers = await Promise.all([...writes, ...reads]);
      expect(answers.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(200));
      for (const read of answers.slice(20)) {
        expect(read.status).toBe(200);
        expect(levels).toContain(read.body.config.logging.level);
        expect([...dirs, '007']).toContain(read.body.config.llm_config.cache_dir);
      }
      const stored = await overrides(t);
      expect(levels).toContain(stored['logging.level']);
      expect(dirs).toContain(stored['llm_config.cache_dir']);
      const { config } = (await show()).body;
      expect(config.logging.level).toBe(stored['logging.level']);
      expect(config.llm_config.cache_dir).toBe(stored['llm_config.cache_dir']);
      // The running logger follows the last write, whatever order the writes landed in.
      expect(t.app.get(LogControl).level).toBe(stored['logging.level']);
      await set('logging.level', 'info');
    });

    it('an override that the store holds but the schema rejects is ignored at once', async () => {
      const store = t.app.get(OverrideStore);
      await store.setOverride('logging.verbose', 'sometimes');
      expect((await get('logging.verbose')).body.value).toBe(false);
      expect(await t.app.get(ConfigurationService).invalidOverrides()).toContainEqual({
        key: 'logging.verbose',
        reason:
          "logging.verbose expects a boolean (true, false, yes or no, in any case); got 'sometimes'",
      });
      await t.app.get(ConfigurationService).removeOverride('logging.verbose');
      expect(await t.app.get(ConfigurationService).invalidOverrides()).toEqual([]);
    });
  });
});
