import type { ToolContext } from '../index';
import { Tool, ToolController } from '../index';
import {
  ConfigGetInput,
  ConfigGetResult,
  ConfigSetInput,
  ConfigSetResult,
  ConfigShowInput,
  ConfigShowResult,
} from './config.dto';
import { ConfigurationService } from '../../configuration';

@ToolController()
export class ConfigController {
  constructor(private readonly config: ConfigurationService) {}

  @Tool({
    name: 'config_show',
    title: 'Show configuration',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: 'Return the full project configuration.',
    input: ConfigShowInput,
    output: ConfigShowResult,
    // Answered at once: a typed client reads one success, never the 202 of a background call.
    async: 'never',
  })
  async show(_input: ConfigShowInput): Promise<ConfigShowResult> {
    return { config: await this.config.tree({ redact: true }) };
  }

  @Tool({
    name: 'config_get',
    errors: [404],
    title: 'Get a configuration value',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: 'Return one configuration value by dot-separated key.',
    input: ConfigGetInput,
    output: ConfigGetResult,
    // Answered at once: a typed client reads one success, never the 202 of a background call.
    async: 'never',
  })
  async get({ key }: ConfigGetInput): Promise<ConfigGetResult> {
    return { key, value: await this.config.get(key, { redact: true }) };
  }

  @Tool({
    name: 'config_set',
    errors: [404],
    title: 'Set a configuration value',
    // It overwrites a stored override; setting the same value twice changes nothing more.
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    description: 'Set a configuration override. The value is coerced to a type.',
    input: ConfigSetInput,
    output: ConfigSetResult,
    // Answered at once: a typed client reads one success, never the 202 of a background call.
    async: 'never',
  })
  async set({ key, value }: ConfigSetInput, call: ToolContext): Promise<ConfigSetResult> {
    // The call's context names its caller and request: the audit entry's actor.
    const stored = await this.config.set(key, value, call);
    return { key, coerced_value: this.config.redact(key, stored) };
  }
}
