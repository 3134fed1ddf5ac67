import { Injectable, Module } from '@nestjs/common';
import { ConfigurationModule } from '../../src/configuration/configuration.module';
import { ConfigKey } from '../../src/configuration/configuration.types';
import { ConfigurationService } from '../../src/configuration/configuration.service';
import { startApp, tempDataDir, TestApp } from '../support/app';
import { executeKey, tool, writeConfigFile } from '../support/config';

describe('a tool module contributes its own configuration section (e2e)', () => {
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
    // Beside the sections the service and its registered tools show without the module.
    const plain = await startApp();
    try {
      const shown = (await tool(plain, await executeKey(plain), 'config_show', {})).body.config;
      expect(Object.keys(config)).toEqual([...Object.keys(shown as object), 'sample']);
      expect(Object.keys(config).slice(0, 3)).toEqual(['llm_config', 'logging', 'server']);
    } finally {
      await plain.close();
    }
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
