import { loadSettings, SettingsError } from './settings';

describe('SECRETS_KEY', () => {
  const key = 'a-long-random-text-of-the-operator-0123456789';

  it('seals webhook and source secrets alike; WEBHOOK_SECRET_KEY is its alias', () => {
    for (const env of [
      { SECRETS_KEY: key },
      { WEBHOOK_SECRET_KEY: key },
      { SECRETS_KEY: key, WEBHOOK_SECRET_KEY: key },
    ]) {
      const settings = loadSettings(env);
      expect([settings.webhooks.secretKey, settings.sources.secretKey]).toEqual([key, key]);
    }
    expect(loadSettings({}).sources.secretKey).toBeUndefined();
  });

  it('refuses two different keys, and a short one', () => {
    expect(() => loadSettings({ SECRETS_KEY: key, WEBHOOK_SECRET_KEY: `${key}x` })).toThrow(
      new SettingsError(
        'Invalid environment: SECRETS_KEY and WEBHOOK_SECRET_KEY (its alias) differ: set one',
      ),
    );
    expect(() => loadSettings({ SECRETS_KEY: 'short' })).toThrow(SettingsError);
  });
});
