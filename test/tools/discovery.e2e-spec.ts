import type { JsonSchema } from '../../src/kernel/validation/json-schema';
import { ToolRegistry } from '../../src/tools/tool.registry';
import { bearer, startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';
import { GREET_INPUT_SCHEMA, GREET_OUTPUT_SCHEMA } from '../support/greet-schema';
import { WordCountModule } from '../support/sample-tool.module';

/** The tools the service ships. */
const SHIPPED_TOOLS = ['greet', 'config_show', 'config_get', 'config_set', 'doctor'];

interface Property {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
  items?: Property;
  default?: unknown;
  example?: unknown;
}

interface ObjectSchema {
  type: string;
  properties?: Record<string, Property>;
  required?: string[];
  additionalProperties?: boolean;
}

const typeOf = (p: Property) => (Array.isArray(p.type) ? p.type[0] : p.type);

/** A value the schema accepts, to fill in the fields a case does not test. */
function validValue(p: Property): unknown {
  if (p.example !== undefined) return p.example;
  if (p.default !== undefined) return p.default;
  if (p.enum?.length) return p.enum[0];
  switch (typeOf(p)) {
    case 'string':
      return 'x'.repeat(Math.max(1, p.minLength ?? 1));
    case 'integer':
    case 'number':
      return p.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return {};
  }
}

/** A value of the wrong JSON type for the property, and the pydantic type the service must report. */
const WRONG_TYPE: Record<string, [unknown, string]> = {
  string: [7, 'string_type'],
  integer: ['1', 'int_type'],
  boolean: ['true', 'bool_type'],
  array: ['x', 'list_type'],
};

interface Case {
  name: string;
  body: Record<string, unknown>;
  loc: (string | number)[];
  type: string;
}

/**
 * Requests that break exactly one rule the published input schema states, each with the validation
 * issue the service must answer: the schema and validation come from one definition, so they agree.
 */
function casesFromSchema(schema: ObjectSchema): Case[] {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const base = Object.fromEntries(required.map((name) => [name, validValue(properties[name])]));
  const cases: Case[] = [
    {
      name: 'an unknown field',
      body: { ...base, zz_unknown: 1 },
      loc: ['body', 'zz_unknown'],
      type: 'extra_forbidden',
    },
  ];
  for (const name of required) {
    const { [name]: _, ...rest } = base;
    cases.push({ name: `${name} missing`, body: rest, loc: ['body', name], type: 'missing' });
  }
  for (const [name, p] of Object.entries(properties)) {
    const with_ = (value: unknown) => ({ ...base, [name]: value });
    const wrong = WRONG_TYPE[typeOf(p) ?? ''];
    if (wrong)
      cases.push({
        name: `${name} of another type`,
        body: with_(wrong[0]),
        loc: ['body', name],
        type: wrong[1],
      });
    if (p.minimum !== undefined)
      cases.push({
        name: `${name} below its minimum`,
        body: with_(p.minimum - 1),
        loc: ['body', name],
        type: 'greater_than_equal',
      });
    if (p.maximum !== undefined)
      cases.push({
        name: `${name} above its maximum`,
        body: with_(p.maximum + 1),
        loc: ['body', name],
        type: 'less_than_equal',
      });
    if (p.minLength)
      cases.push({
        name: `${name} too short`,
        body: with_('x'.repeat(p.minLength - 1)),
        loc: ['body', name],
        type: 'string_too_short',
      });
    if (p.maxLength !== undefined)
      cases.push({
        name: `${name} too long`,
        body: with_('x'.repeat(p.maxLength + 1)),
        loc: ['body', name],
        type: 'string_too_long',
      });
  }
  return cases;
}

describe('discovery: GET /api/v1/services (e2e)', () => {
  let t: TestApp;
  let execute: string;
  let readOnly: string;

  beforeAll(async () => {
    // A tool from outside the service too: the checks below hold for any tool.
    t = await startApp({ imports: [WordCountModule] });
    execute = await t.createKey({ scopes: ['services:execute'], plan: 'unlimited' });
    readOnly = await t.createKey({ scope_template: 'read_only', plan: 'pro' });
  });
  afterAll(() => t.close());

  const list = (key?: string) => {
    const req = t.http().get('/api/v1/services');
    return key ? req.set(bearer(key)) : req;
  };

  it('needs a key', async () => {
    const res = await list();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('needs services:read or services:execute', async () => {
    const admin = await t.createKey({ scopes: ['admin:read'] });
    const res = await list(admin);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
    expect((await list(readOnly)).status).toBe(200);
    expect((await list(execute)).status).toBe(200);
  });

  it('lists every registered tool, the shipped ones included', async () => {
    const res = await list(readOnly);
    const names = (res.body.tools as { name: string }[]).map((tool) => tool.name);
    const registered = t.app
      .get(ToolRegistry)
      .list()
      .map((tool) => tool.name);
    expect(names).toEqual(registered);
    expect(names).toEqual(expect.arrayContaining(SHIPPED_TOOLS));
  });

  it('describes each tool: name, description, method, path and closed JSON Schemas', async () => {
    const res = await list(readOnly);
    for (const tool of res.body.tools) {
      expect(Object.keys(tool).sort()).toEqual(
        [
          'cost',
          'description',
          'input_schema',
          'method',
          'name',
          'output_schema',
          'path',
          'scope',
        ].sort(),
      );
      expect(tool.method).toBe('POST');
      expect(tool.path).toBe(`/api/v1/services/${tool.name}`);
      expect(typeof tool.description).toBe('string');
      expect(tool.description.length).toBeGreaterThan(0);
      expect(tool.input_schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.output_schema).toMatchObject({ type: 'object' });
    }
  });

  it("states greet's rules: name 1-200 characters, times 1-100, shout a boolean", async () => {
    const res = await list(readOnly);
    const greet = res.body.tools.find((tool: { name: string }) => tool.name === 'greet');
    expect(greet.input_schema).toMatchObject(GREET_INPUT_SCHEMA);
    expect(greet.output_schema).toMatchObject(GREET_OUTPUT_SCHEMA);
  });

  it('greet rejects times 0, as its schema says (minimum 1)', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(execute))
      .send({ name: 'Alice', times: 0 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'times'],
          msg: 'Input should be greater than or equal to 1',
          type: 'greater_than_equal',
        },
      ],
    });
  });

  it("every tool's validation agrees with its published schema, rule by rule", async () => {
    const res = await list(execute);
    let checked = 0;
    for (const tool of res.body.tools as {
      name: string;
      path: string;
      input_schema: JsonSchema;
    }[]) {
      for (const c of casesFromSchema(tool.input_schema as unknown as ObjectSchema)) {
        const answer = await t.http().post(tool.path).set(bearer(execute)).send(c.body);
        const context = `${tool.name}: ${c.name} -> ${answer.status} ${JSON.stringify(answer.body)}`;
        expect({ context, status: answer.status }).toEqual({ context, status: 400 });
        expect({ context, detail: answer.body.detail }).toEqual({
          context,
          detail: [expect.objectContaining({ loc: c.loc, type: c.type })],
        });
        checked++;
      }
    }
    // greet alone: an unknown field, name missing, 3 wrong types, times out of range twice, name
    // too short and too long.
    expect(checked).toBeGreaterThanOrEqual(9);
  });

  it('publishes the same schemas as the OpenAPI document', async () => {
    const tools = (await list(readOnly)).body.tools as {
      path: string;
      input_schema: ObjectSchema;
    }[];
    const doc = (await t.http().get('/openapi.json')).body;
    for (const tool of tools) {
      const component = requestBodyOf<ObjectSchema>(doc, doc.paths[tool.path].post).schema;
      expect(component.required ?? []).toEqual(tool.input_schema.required ?? []);
      expect(Object.keys(component.properties ?? {})).toEqual(
        Object.keys(tool.input_schema.properties ?? {}),
      );
      for (const [name, p] of Object.entries(component.properties ?? {})) {
        const published = tool.input_schema.properties?.[name] as Property;
        for (const rule of [
          'minimum',
          'maximum',
          'minLength',
          'maxLength',
          'enum',
          'default',
        ] as const) {
          expect([tool.path, name, rule, published[rule]]).toEqual([
            tool.path,
            name,
            rule,
            p[rule],
          ]);
        }
      }
    }
  });
});
