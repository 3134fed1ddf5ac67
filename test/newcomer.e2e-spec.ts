import { startApp, TestApp } from './support/app';

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  examples?: unknown;
  schema?: Record<string, unknown>;
}

/** What a new user meets first: Swagger UI, the licence, the CLI's help and its first mistakes. */
describe("a newcomer's path (e2e)", () => {
  let t: TestApp;
  let document: {
    info: { license?: { name: string } };
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  };

  beforeAll(async () => {
    t = await startApp();
    document = (await t.http().get('/openapi.json').expect(200)).body as typeof document;
  });
  afterAll(() => t.close());

  it('gives Swagger UI no Idempotency-Key to pre-fill: the example is in the description', () => {
    const parameters = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    expect(parameters.length).toBeGreaterThanOrEqual(5);
    for (const parameter of parameters) {
      expect(Object.keys(parameter)).not.toContain('example');
      expect(Object.keys(parameter)).not.toContain('examples');
      expect(Object.keys(parameter.schema ?? {})).not.toContain('example');
      expect(Object.keys(parameter.schema ?? {})).not.toContain('examples');
      expect(parameter).toMatchObject({
        description: expect.stringContaining('for example `order-4711-greet`'),
      });
    }
  });
});
