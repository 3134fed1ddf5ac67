import { type Transport } from '@modelcontextprotocol/client';
import {
  DEFAULT_INHERITED_ENV_VARS,
  StdioClientTransport,
} from '@modelcontextprotocol/client/stdio';

/**
 * A stdio child's whole environment: its source's `env` and PATH, nothing else. The SDK adds the
 * variables it deems safe to inherit (HOME, USER …) under what it is given; each is given as
 * undefined here, which Node leaves out of the child's environment.
 */
export function childEnvironment(env: Record<string, string>): Record<string, string> {
  const none = Object.fromEntries(DEFAULT_INHERITED_ENV_VARS.map((name) => [name, undefined]));
  return { ...none, ...env, PATH: process.env.PATH ?? '' };
}

/** The transport of a source that is a command: the child started with its own environment only. */
export function stdioTransport(
  command: string,
  args: string[],
  env: Record<string, string>,
): Transport {
  return new StdioClientTransport({
    command,
    args,
    env: childEnvironment(env),
    stderr: 'ignore',
  });
}
