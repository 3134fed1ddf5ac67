import { isIP } from 'node:net';
import { join } from 'node:path';
import { ConfigKey, ConfigSectionDefinition, MAX_VALUE_LENGTH } from './configuration.types';

/** The levels `logging.level` takes, pino's names. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The service's own sections. Other modules add theirs with `ConfigurationModule.forFeature()`. */
export const CORE_SECTIONS: ConfigSectionDefinition[] = [
  {
    name: 'llm_config',
    description: 'The language-model client used by tools.',
    keys: {
      cache_enabled: ConfigKey.boolean({
        default: true,
        description: 'Cache model answers on disk.',
      }),
      cache_dir: ConfigKey.string({
        default: ({ dataDir }) => join(dataDir, 'cache'),
        minLength: 1,
        maxLength: 1024,
        insideDataDir: true,
        description:
          'Directory of the answer cache; default <DATA_DIR>/cache. Through config_set: a path inside DATA_DIR.',
      }),
      api_key: ConfigKey.string({
        default: '',
        secret: true,
        maxLength: MAX_VALUE_LENGTH,
        description: 'Credential for the model provider; shown as "********" once set.',
      }),
    },
  },
  {
    name: 'logging',
    description: 'The process logger; both keys apply at once.',
    keys: {
      level: ConfigKey.string({
        default: 'info',
        choices: LOG_LEVELS,
        caseInsensitive: true,
        description: 'Lowest level written: trace, debug, info, warn, error or fatal.',
      }),
      verbose: ConfigKey.boolean({
        default: false,
        description: 'One access line per request.',
      }),
    },
  },
  {
    name: 'server',
    description: 'Where the HTTP server listens; read at start-up.',
    keys: {
      host: ConfigKey.string({
        default: '0.0.0.0',
        restart: true,
        envAlias: 'HOST',
        check: {
          test: (v) => isIP(v) !== 0 || HOST_NAME.test(v),
          expects: 'a host name or IP address',
        },
        description: 'Listening address.',
      }),
      port: ConfigKey.integer({
        default: 8000,
        min: 1,
        max: 65535,
        restart: true,
        envAlias: 'PORT',
        description: 'Listening port.',
      }),
    },
  },
];
