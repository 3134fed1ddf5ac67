import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_SCOPES, SCOPE_TEMPLATES, WILDCARD_SCOPES } from '../../src/kernel/auth/scopes';
import { bearer, startApp, TestApp } from '../support/app';
import { runCli, CLI_TIMEOUT_MS } from '../support/cli';
import { registeredToolNames } from '../support/registered-tools';

const ROOT = join(__dirname, '../..');
const ALL_SCOPES = [...KNOWN_SCOPES, ...WILDCARD_SCOPES];
/** The registered tools in name order: the shipped five and any a team has added. */
const TOOLS = registeredToolNames().sort();
const VALID =
  'valid scopes: services:read, services:execute, admin:read, admin:write, ' +
  `${TOOLS.map((tool) => `services:execute:${tool}`).join(', ')}, services:*, admin:*, *; ` +
  'templates: read_only (services:read), standard (services:read, services:execute), admin (*)';

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

  it('has one licence: MIT in package.json, LICENSE and OpenAPI', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { license?: string }>;
    };
    const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect({
      packageJson: pkg.license,
      packageLock: lock.packages[''].license,
      licenseFile: licence.split('\n')[0],
      openApi: document.info.license?.name,
    }).toEqual({
      packageJson: 'MIT',
      packageLock: 'MIT',
      licenseFile: 'MIT License',
      openApi: 'MIT',
    });
    expect(licence).toContain('Copyright (c) 2026 the tool invocation service authors');
    expect(licence).toContain('Permission is hereby granted, free of charge');
  });

  it('lists the valid scopes and templates in keys create --help and keys update --help', async () => {
    const [create, update] = await Promise.all([
      runCli(['keys', 'create', '--help'], {}),
      runCli(['keys', 'update', '--help'], {}),
    ]);
    for (const help of [create, update]) {
      expect(help.code).toBe(0);
      for (const scope of ALL_SCOPES)
        expect(help.stdout).toMatch(new RegExp(`^  ${escape(scope)} `, 'm'));
      for (const [name, scopes] of Object.entries(SCOPE_TEMPLATES)) {
        expect(help.stdout).toMatch(new RegExp(`^  ${name} +${escape(scopes.join(','))}`, 'm'));
      }
    }
    expect(create.stdout).toContain(
      '--template <name>      scope template: read_only, standard, admin',
    );
    expect(create.stdout).toMatch(/^ {2}services:execute +every tool call/m);
    expect(create.stdout).toMatch(
      new RegExp(
        `^ {2}services:execute:<tool> +one tool's calls only, of ${TOOLS.join(', ')}$`,
        'm',
      ),
    );
    expect(create.stdout).toMatch(
      /^ {2}standard +services:read,services:execute \(the default\)$/m,
    );
  });

  it(
    'answers an unknown scope with the valid scopes and templates, over the CLI (exit 2) and REST (400)',
    async () => {
      const cli = await runCli(['keys', 'create', '--name', 'x', '--scopes', 'greet'], {
        DATA_DIR: t.dataDir,
      });
      expect(cli.code).toBe(2);
      expect(cli.stderr).toBe(`error: Unknown scope 'greet'; ${VALID}\n`);

      const rest = await t
        .http()
        .post('/api/v1/auth/api-keys')
        .set(bearer(t.adminKey))
        .send({ name: 'x', scopes: ['services:read', 'greet', 'config_set'] });
      expect(rest.status).toBe(400);
      expect(rest.body).toEqual({
        detail: [
          {
            loc: ['body', 'scopes', 1],
            msg: `Unknown scope 'greet'; ${VALID}`,
            type: 'value_error',
          },
          {
            loc: ['body', 'scopes', 2],
            msg: `Unknown scope 'config_set'; ${VALID}`,
            type: 'value_error',
          },
        ],
      });
    },
    CLI_TIMEOUT_MS,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('texts in the singular where it applies (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '1', AUTH_FAILURE_WINDOW_SECONDS: '1' } });
  });
  afterAll(() => t.close());

  it('says 1 request per second and Retry after 1 second', async () => {
    const key = await t.createKey({ scope_template: 'standard', rate_limit: 1 });
    const greet = () =>
      t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'x' });
    const answers = [await greet(), await greet()];
    expect(answers.map((res) => res.status)).toContain(429);
    expect(answers.find((res) => res.status === 429)?.body).toEqual({
      detail: 'Rate limit exceeded: 1 request per second. Retry after 1 second.',
    });

    const wrong = () =>
      t
        .http()
        .get('/api/v1/auth/me')
        .set(bearer(`sk_${'0'.repeat(64)}`));
    const refused = [await wrong(), await wrong()];
    expect(refused.map((res) => res.status)).toEqual([401, 429]);
    expect(refused[1].body).toEqual({
      detail: 'Too many failed authentication attempts from this address. Retry after 1 second.',
    });
  });
});
