import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiProperty, defineTool, StringField } from '../../src';
import { ConfigKey, ConfigurationModule, ConfigurationService } from '../../src/configuration';
import { bearer, startApp, TestApp } from '../support/app';

class LookupInput {
  @StringField({ description: 'What to look up.', minLength: 1, maxLength: 50 })
  term: string;
}

class LookupResult {
  @ApiProperty({ description: 'What the upstream answered.' })
  answer: string;
}

/**
 * A one-file tool with a configuration section of its own (`imports`) and a service injected into
 * its handler (`inject`), calling an upstream with the call's signal: the shape of
 * docs/adding-a-tool.md's example.
 */
const LookupToolModule = defineTool({
  name: 'lookup',
  description: 'Looks a term up in the upstream service.',
  input: LookupInput,
  output: LookupResult,
  cost: 2,
  timeoutMs: 1_000,
  imports: [
    ConfigurationModule.forFeature({
      name: 'lookup',
      description: 'The lookup tool.',
      keys: {
        base_url: ConfigKey.string({ default: 'http://127.0.0.1:9', description: 'The upstream.' }),
      },
    }),
  ],
  inject: [ConfigurationService],
  handler: async ({ term }, context, config) => {
    const baseUrl = (await config.get('lookup.base_url')) as string;
    const res = await fetch(`${baseUrl}/${encodeURIComponent(term)}`, { signal: context.signal });
    return { answer: await res.text() };
  },
});

describe('defineTool with a configuration section and an injected service (e2e)', () => {
  let upstream: Server;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    // The upstream: answers `<term>!`, except `hang`, which it never answers.
    upstream = createServer((req, res) => {
      if (req.url !== '/hang') res.end(`${decodeURIComponent(req.url!.slice(1))}!`);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    t = await startApp({
      tools: [LookupToolModule],
      env: { APP__LOOKUP__BASE_URL: `http://127.0.0.1:${port}` },
    });
    key = await t.createKey({ scopes: ['services:execute:lookup'] });
  });
  afterAll(async () => {
    await t.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('reads its setting through the injected service and calls the upstream', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/lookup')
      .set(bearer(key))
      .send({ term: 'ab' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ answer: 'ab!' });
    expect(res.headers['x-quota-cost']).toBe('2');
  });

  it('is answered 504 at its deadline, the upstream request aborted by the signal', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/lookup')
      .set(bearer(key))
      .send({ term: 'hang' });
    expect(res.status).toBe(504);
    expect(res.body.detail).toMatch(/lookup/);
  });
});
