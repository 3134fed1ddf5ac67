import { ConfigKey, ConfigSectionDefinition } from './configuration.types';
import { CORE_SECTIONS } from './core-sections';
import { ConfigSchema, envNameOf, isWellFormedKey } from './configuration.schema';

const context = { dataDir: '/data' };
const flag = ConfigKey.boolean({ default: false, description: 'flag' });
const build = (...sections: ConfigSectionDefinition[]) => new ConfigSchema(sections, context);

describe('ConfigSchema', () => {
  const schema = build(...CORE_SECTIONS);

  it('resolves defaults against the settings', () => {
    expect(schema.key('llm_config.cache_dir')?.default).toBe('/data/cache');
    expect(schema.key('server.port')?.default).toBe(8000);
  });

  it('knows sections and keys apart, and nothing else', () => {
    expect(schema.isSection('logging')).toBe(true);
    expect(schema.key('logging')).toBeUndefined();
    expect(schema.keysUnder('logging').map((k) => k.key)).toEqual([
      'logging.level',
      'logging.verbose',
    ]);
    for (const key of ['__proto__', 'constructor', 'toString', 'logging.constructor']) {
      expect(schema.key(key)).toBeUndefined();
      expect(schema.isSection(key)).toBe(false);
    }
  });

  it('names the environment variables of each key', () => {
    expect(envNameOf('logging.level')).toBe('APP__LOGGING__LEVEL');
    expect(schema.key('server.port')?.envNames).toEqual(['APP__SERVER__PORT', 'PORT']);
    expect(schema.keyForEnv('HOST')?.key).toBe('server.host');
    expect(schema.keyForEnv('APP__LLM_CONFIG__CACHE_ENABLED')?.key).toBe(
      'llm_config.cache_enabled',
    );
  });

  it.each([
    ['a.b', true],
    ['a_1.b2.c_', true],
    ['A.b', false],
    ['a..b', false],
    ['a.', false],
    ['.a', false],
    ['1a', false],
    ['__proto__.x', false],
    ['constructor.prototype.x', false],
    ['a.valueOf', false],
    ['a.tostring', false],
    ['a-b', false],
    [`a.${'b'.repeat(199)}`, false],
  ])('%j well-formed: %s', (key, ok) => {
    expect(isWellFormedKey(key)).toBe(ok);
  });

  it.each<[string, ConfigSectionDefinition[], RegExp]>([
    [
      'a section twice',
      [
        { name: 's', keys: {} },
        { name: 's', keys: {} },
      ],
      /named 's'/,
    ],
    ['a reserved section', [{ name: 'constructor', keys: { x: flag } }], /constructor/],
    ['a dotted section name', [{ name: 'a.b', keys: { x: flag } }], /one segment/],
    ['a malformed key', [{ name: 's', keys: { 'Bad-Key': flag } }], /s\.Bad-Key/],
    [
      'a key that is also a section',
      [{ name: 's', keys: { a: flag, 'a.b': flag } }],
      /also a section/,
    ],
    [
      'two keys on one variable',
      [
        { name: 's', keys: { a__b: flag } },
        { name: 's__a', keys: { b: flag } },
      ],
      /APP__S__A__B/,
    ],
    [
      'an invalid default',
      [{ name: 's', keys: { p: ConfigKey.integer({ default: 0, min: 1, description: 'p' }) } }],
      /Default of 's\.p'/,
    ],
  ])('refuses %s', (_what, sections, message) => {
    expect(() => build(...sections)).toThrow(message);
  });
});
