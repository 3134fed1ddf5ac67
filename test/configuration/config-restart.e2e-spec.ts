import { OverrideStore } from '../../src/configuration/override.store';
import { LogControl } from '../../src/logging/log-control';
import { ConfigurationService } from '../../src/configuration/configuration.service';
import { startApp } from '../support/app';
import { executeKey, tool } from '../support/config';

describe('configuration across a restart on the same DATA_DIR (e2e)', () => {
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
      const store = first.app.get(OverrideStore);
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
