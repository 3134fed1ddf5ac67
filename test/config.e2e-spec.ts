import { Injectable, Module } from '@nestjs/common';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { rootModule } from '../src/app.module';
import { LOG_DESTINATION, LogControl } from '../src/logging/log-control';
import { ENVIRONMENT } from '../src/settings/settings';
import { Store } from '../src/store/store';
import { ConfigurationModule } from '../src/configuration/configuration.module';
import { ConfigKey } from '../src/configuration/configuration.types';
import { ConfigurationService } from '../src/configuration/configuration.service';
import {
  baseEnv,
  bearer,
  LogCapture,
  startApp as startTestApp,
  tempDataDir,
  TestApp,
  TestAppOptions,
} from './support/app';

/**
 * nestjs-pino keeps the first app's logger, process-wide, for lines written outside a request
 * (start-up lines): forget it so that each app's start-up lines land in its own captured log.
 */
const startApp = (options?: TestAppOptions) => {
  __resetOutOfContextForTests();
  return startTestApp(options);
};

const tool = (t: TestApp, key: string, name: string, body?: object) => {
  const req = t.http().post(`/api/v1/services/${name}`).set(bearer(key));
  return body === undefined ? req : req.send(body);
};

const executeKey = (t: TestApp) => t.createKey({ scope_template: 'standard', plan: 'unlimited' });
const overrides = (t: TestApp) => t.app.get(Store).getOverrides();
const debugLines = (t: TestApp) => t.logs.records().filter((r) => r.level === 'debug').length;
const accessLines = (t: TestApp) => t.logs.records().filter((r) => r.msg === 'request completed');

function writeConfigFile(dir: string, yaml: string): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('config tools (e2e)', () => {
  describe('on a fresh app', () => {
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
        const store = t.app.get(Store);
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

  describe('across a restart on the same DATA_DIR', () => {
    it('keeps the overrides, and applies them to the new process', async () => {
      const first = await startApp();
      let key: string;
      try {
        key = await executeKey(first);
        await tool(first, key, 'config_set', { key: 'llm_config.cache_enabled', value: 'no' });
        await tool(first, key, 'config_set', { key: 'logging.level', value: 'Warn' });
        await tool(first, key, 'config_set', { key: 'server.port', value: '9123' });
        const config = first.app.get(ConfigurationService);
        expect(config.listenAddress()).toEqual({ host: '0.0.0.0', port: 8000 });
        expect(await config.pendingRestart()).toEqual([
          { key: 'server.port', running: 8000, configured: 9123 },
        ]);
      } finally {
        await first.close();
      }

      const second = await startApp({ dataDir: first.dataDir });
      try {
        const get = (k: string) => tool(second, key, 'config_get', { key: k });
        expect((await get('llm_config.cache_enabled')).body.value).toBe(false);
        expect((await get('logging.level')).body.value).toBe('warn');
        expect(second.app.get(LogControl).level).toBe('warn');
        expect(second.app.get(ConfigurationService).listenAddress()).toEqual({
          host: '0.0.0.0',
          port: 9123,
        });
        expect(await second.app.get(ConfigurationService).pendingRestart()).toEqual([]);
      } finally {
        await second.close();
      }
    });

    it('reads through to the store: another instance on it sees an override at once', async () => {
      const a = await startApp();
      const b = await startApp({ dataDir: a.dataDir }).catch(async (error: unknown) => {
        await a.close();
        throw error;
      });
      try {
        const key = await executeKey(a);
        await tool(a, key, 'config_set', { key: 'llm_config.cache_dir', value: 'shared-cache' });
        const res = await tool(b, key, 'config_get', { key: 'llm_config.cache_dir' });
        expect(res.body).toEqual({ key: 'llm_config.cache_dir', value: 'shared-cache' });
      } finally {
        await b.close();
        await a.close();
      }
    });

    it('starts with invalid stored overrides, ignoring and reporting them', async () => {
      const first = await startApp();
      try {
        const store = first.app.get(Store);
        await store.setOverride('server.port', 'abc');
        await store.setOverride('logging.level', 'loud');
        await store.setOverride('retired.key', 1);
      } finally {
        await first.close();
      }

      const second = await startApp({ dataDir: first.dataDir });
      try {
        const config = second.app.get(ConfigurationService);
        expect(config.listenAddress().port).toBe(8000);
        expect(second.app.get(LogControl).level).toBe('info');
        expect((await config.invalidOverrides()).map((o) => o.key).sort()).toEqual([
          'logging.level',
          'retired.key',
          'server.port',
        ]);
        const warnings = second.logs.records().filter((r) => r.level === 'warn');
        expect(warnings.map((r) => r.msg)).toContainEqual(
          expect.stringContaining("Ignoring the stored override of 'retired.key'"),
        );
        await config.removeOverride('retired.key');
        expect((await config.invalidOverrides()).map((o) => o.key)).not.toContain('retired.key');
      } finally {
        await second.close();
      }
    });
  });

  describe('layers: defaults, CONFIG_FILE, overrides, environment', () => {
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
      expect(config).toEqual({
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

  describe('start-up stops on an invalid CONFIG_FILE or environment', () => {
    /** The server's root module as startApp builds it, closed again whatever happens (no leaked signal hooks). */
    const failsWith = async (env: Record<string, string>, message: RegExp) => {
      __resetOutOfContextForTests();
      const start = async () => {
        const moduleRef = await Test.createTestingModule({ imports: [rootModule('server')] })
          .overrideProvider(ENVIRONMENT)
          .useValue({ ...baseEnv(), DATA_DIR: tempDataDir(), ...env })
          .overrideProvider(LOG_DESTINATION)
          .useValue(new LogCapture())
          .compile();
        const app = moduleRef.createNestApplication({ logger: false });
        try {
          await app.init();
        } finally {
          await app.close().catch(() => undefined);
        }
      };
      await expect(start()).rejects.toThrow(message);
    };
    const file = (yaml: string) => writeConfigFile(tempDataDir(), yaml);

    it.each([
      [
        'server:\n  port: 70000\n',
        /CONFIG_FILE .*server\.port expects an integer from 1 to 65535; got '70000'/,
      ],
      ['server:\n  port: 80.5\n', /server\.port expects an integer/],
      ['logging:\n  level: loud\n', /logging\.level expects one of trace/],
      ['loging:\n  level: debug\n', /unknown configuration key 'loging'/],
      ['logging:\n  colour: red\n', /unknown configuration key 'logging\.colour'/],
      ['logging: debug\n', /logging is a section/],
      ['llm_config:\n  cache_enabled: maybe\n', /llm_config\.cache_enabled expects a boolean/],
      ['- a list\n', /must be a mapping/],
      ['server: [unclosed\n', /CONFIG_FILE/],
      ['__proto__:\n  polluted: true\n', /unknown configuration key '__proto__'/],
    ])('CONFIG_FILE %j', async (yaml, message) => {
      await failsWith({ CONFIG_FILE: file(yaml) }, message);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each([
      [{ PORT: '70000' }, /PORT: server\.port expects an integer from 1 to 65535; got '70000'/],
      [{ PORT: 'abc' }, /PORT: server\.port expects an integer/],
      [{ HOST: 'no such host!' }, /HOST: server\.host expects a host name or IP address/],
      [{ APP__LOGGING__LEVEL: 'loud' }, /APP__LOGGING__LEVEL: logging\.level expects one of/],
      [{ APP__SERVER__PRT: '1' }, /APP__SERVER__PRT names no configuration key/],
      [
        { PORT: '8001', APP__SERVER__PORT: '8002' },
        /PORT and APP__SERVER__PORT both set server\.port|APP__SERVER__PORT and PORT both set server\.port/,
      ],
    ])('environment %j', async (env, message) => {
      await failsWith(env, message);
    });

    it('treats an empty variable as unset', async () => {
      const t = await startApp({ env: { PORT: '', APP__LOGGING__LEVEL: '' } });
      try {
        expect(t.app.get(ConfigurationService).listenAddress().port).toBe(8000);
      } finally {
        await t.close();
      }
    });
  });

  describe('a tool module contributes its own section', () => {
    @Injectable()
    class SampleService {
      constructor(private readonly config: ConfigurationService) {}
      ratio(): Promise<unknown> {
        return this.config.get('sample.ratio');
      }
    }

    @Module({
      imports: [
        ConfigurationModule.forFeature({
          name: 'sample',
          description: 'A sample tool.',
          keys: {
            ratio: ConfigKey.float({ default: 0.5, min: 0, max: 1, description: 'A ratio.' }),
            token: ConfigKey.string({ default: 'preset', secret: true, description: 'A secret.' }),
            'retry.max_attempts': ConfigKey.integer({
              default: 3,
              min: 1,
              max: 10,
              description: 'Attempts.',
            }),
          },
        }),
      ],
      providers: [SampleService],
    })
    class SampleModule {}

    let t: TestApp;
    let key: string;
    const set = (k: string, value: string) => tool(t, key, 'config_set', { key: k, value });

    // Some of these set overrides: each test gets an app of its own.
    beforeEach(async () => {
      const dataDir = tempDataDir();
      t = await startApp({
        dataDir,
        imports: [SampleModule],
        env: {
          APP__SAMPLE__RETRY__MAX_ATTEMPTS: '5',
          CONFIG_FILE: writeConfigFile(dataDir, 'sample:\n  ratio: 0.25\n'),
        },
      });
      key = await executeKey(t);
    });
    afterEach(() => t.close());

    it('shows it beside the service sections, from every layer', async () => {
      const { config } = (await tool(t, key, 'config_show', {})).body;
      expect(config.sample).toEqual({ ratio: 0.25, token: '********', retry: { max_attempts: 5 } });
      expect(Object.keys(config)).toEqual(['llm_config', 'logging', 'server', 'sample']);
    });

    it('sets, checks and pins its keys like the service own', async () => {
      expect((await set('sample.ratio', '1')).body).toEqual({
        key: 'sample.ratio',
        coerced_value: 1,
      });
      expect(await t.app.get(SampleService).ratio()).toBe(1);
      expect((await set('sample.ratio', '.75')).body.coerced_value).toBe(0.75);
      const tooBig = await set('sample.ratio', '1.5');
      expect(tooBig.status).toBe(400);
      expect(tooBig.body.detail[0]).toEqual({
        loc: ['body', 'value'],
        msg: "sample.ratio expects a number from 0 to 1; got '1.5'",
        type: 'less_than_equal',
      });
      const pinned = await set('sample.retry.max_attempts', '2');
      expect(pinned.status).toBe(409);
      expect(pinned.body.detail).toContain('APP__SAMPLE__RETRY__MAX_ATTEMPTS');
      expect((await tool(t, key, 'config_get', { key: 'sample.retry' })).body.value).toEqual({
        max_attempts: 5,
      });
      expect((await set('sample.retry', '2')).status).toBe(400);
    });
  });

  describe('the server process', () => {
    const freePort = () =>
      new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          server.close(() => resolve(port));
        });
      });
    const status = (port: number) =>
      new Promise<number>((resolve) => {
        httpGet({ host: '127.0.0.1', port, path: '/api/v1/auth/me' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', () => resolve(0));
      });

    it('listens on server.host and server.port of the tree', async () => {
      const port = await freePort();
      const dataDir = tempDataDir();
      const configFile = writeConfigFile(dataDir, `server:\n  host: 127.0.0.1\n  port: ${port}\n`);
      const child = spawn(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', 'src/main.ts'],
        {
          cwd: join(__dirname, '..'),
          env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, CONFIG_FILE: configFile },
          stdio: 'ignore',
        },
      );
      try {
        let answered = 0;
        // Bounded: at most 300 polls, 100 ms apart.
        for (let i = 0; i < 300 && answered === 0 && child.exitCode === null; i++) {
          await new Promise((r) => setTimeout(r, 100));
          answered = await status(port);
        }
        expect(answered).toBe(401);
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        if (child.exitCode === null && child.kill('SIGTERM')) await exited;
      }
    });
  });
});
