import { OverrideStore } from '../../src/configuration/override.store';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, TestApp } from './app';

/** Calls a tool over REST with a key; no body at all when `body` is undefined. */
export const tool = (t: TestApp, key: string, name: string, body?: object) => {
  const req = t.http().post(`/api/v1/services/${name}`).set(bearer(key));
  return body === undefined ? req : req.send(body);
};

/** A key that may call every tool, without a quota. */
export const executeKey = (t: TestApp) =>
  t.createKey({ scope_template: 'standard', plan: 'unlimited' });

/** The overrides the app's store holds. */
export const overrides = (t: TestApp) => t.app.get(OverrideStore).getOverrides();

/** Writes `yaml` to config.yaml in `dir`; returns its path, for CONFIG_FILE. */
export function writeConfigFile(dir: string, yaml: string): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}
