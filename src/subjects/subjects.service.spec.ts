import type { AuditActor } from '../audit';
import type { ToolCatalog } from '../kernel/auth/scopes';
import { ApiError, ValidationFailed } from '../kernel/errors/api-error';
import type { ReplyControl } from '../kernel/http/plumbing';
import { loadSettings } from '../kernel/settings/settings';
import type { QuotaService } from '../limits';
import type { AuthenticatedKey } from './caller';
import { type Holdings, type SubjectKind, SubjectsService } from './subjects.service';

interface Row extends Holdings {
  at: number;
  locked?: boolean;
  name?: string;
  external_id?: string | null;
}
type Changes = Partial<Pick<Row, 'plan' | 'daily_limit' | 'rate_limit' | 'scopes' | 'name'>>;

/** A kind of subject held in memory, to see what SubjectsService asks of a kind, and in what order. */
class MemoryKind implements SubjectKind<Row, Changes, number> {
  readonly notFound = 'Row not found';
  readonly path = '/rows';
  readonly rows = new Map<string, Row>();
  readonly written: Changes[] = [];

  add(row: Partial<Row> & { id: string }): void {
    this.rows.set(row.id, {
      scopes: ['services:execute'],
      plan: 'free',
      daily_limit: null,
      monthly_limit: null,
      rate_limit: null,
      at: this.rows.size,
      ...row,
    });
  }
  find(id: string) {
    return Promise.resolve(this.rows.get(id));
  }
  list(after: number | undefined, limit: number) {
    const rows = [...this.rows.values()].filter((row) => after === undefined || row.at > after);
    return Promise.resolve(rows.slice(0, limit));
  }
  position(row: Row) {
    return row.at;
  }
  cursor(at: number) {
    return `row-${at}`;
  }
  parse(cursor: unknown) {
    const found = typeof cursor === 'string' ? /^row-(\d+)$/.exec(cursor) : null;
    return found ? Number(found[1]) : undefined;
  }
  holdings({ id, scopes, plan, daily_limit, monthly_limit, rate_limit }: Row): Holdings {
    return { id, scopes, plan, daily_limit, monthly_limit, rate_limit };
  }
  refuseChange(row: Row) {
    if (row.locked) throw new ApiError(409, 'Row is locked');
  }
  checked(changes: Changes) {
    if (changes.name === '') {
      throw new ValidationFailed([{ loc: ['body', 'name'], msg: 'empty', type: 'value_error' }]);
    }
    return changes;
  }
  update(row: Row, changes: Changes) {
    this.written.push(changes);
    const after = { ...row, ...changes };
    this.rows.set(row.id, after);
    return Promise.resolve(after);
  }
  refuseRemoval(row: Row) {
    if (row.locked) throw new ApiError(409, 'Row is locked');
  }
  remove(row: Row) {
    return Promise.resolve(this.rows.delete(row.id));
  }
}

const settings = loadSettings({ DATA_DIR: '/nonexistent' });
const catalog = { costs: () => new Map([['greet', 1]]) } as unknown as ToolCatalog;
const service = new SubjectsService({} as QuotaService, settings, catalog, 5000);
const actor = {} as AuditActor;
/** An admin on the free plan: it may manage what the free plan allows, and no more. */
const caller = {
  kind: 'key',
  id: 'key_admin',
  scopes: ['admin:read', 'admin:write', 'services:execute'],
  plan: 'free',
  daily_limit: null,
  monthly_limit: null,
  rate_limit: null,
} as unknown as AuthenticatedKey;

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: ApiError) => error.getStatus(),
  );

describe('SubjectsService', () => {
  it('refuses a change in order: 404, 403 on what it holds, 409, 400, 403 on what it grants', async () => {
    const kind = new MemoryKind();
    kind.add({ id: 'wide', scopes: ['admin:write', 'services:execute', 'audit:read'] });
    kind.add({ id: 'locked', locked: true });
    kind.add({ id: 'plain' });
    const change = (id: string, changes: Changes) =>
      status(service.change(kind, caller, id, changes, actor));
    expect(await change('nobody', {})).toBe(404);
    // Holds a scope the caller lacks: 403 before the 409 and the 400 are even looked at.
    expect(await change('wide', { name: '' })).toBe(403);
    expect(await change('locked', { name: '' })).toBe(409);
    expect(await change('plain', { name: '' })).toBe(400);
    expect(await change('plain', { plan: 'unlimited' })).toBe(403);
    expect(await change('plain', { scopes: ['audit:read'] })).toBe(403);
    expect(kind.written).toEqual([]);
  });

  it("writes only the fields sent, a grant within the caller's own", async () => {
    const kind = new MemoryKind();
    kind.add({ id: 'plain' });
    const after = await service.change(
      kind,
      caller,
      'plain',
      { name: 'renamed', daily_limit: 10, rate_limit: undefined },
      actor,
    );
    expect(kind.written).toEqual([{ name: 'renamed', daily_limit: 10 }]);
    expect(after).toMatchObject({ id: 'plain', name: 'renamed', daily_limit: 10 });
  });

  it('removes only what the caller may manage and what may go', async () => {
    const kind = new MemoryKind();
    kind.add({ id: 'wide', scopes: ['audit:read'] });
    kind.add({ id: 'locked', locked: true });
    kind.add({ id: 'plain' });
    expect(await status(service.remove(kind, caller, 'wide', actor))).toBe(403);
    expect(await status(service.remove(kind, caller, 'locked', actor))).toBe(409);
    expect(await status(service.remove(kind, caller, 'plain', actor))).toBe(200);
    expect([...kind.rows.keys()]).toEqual(['wide', 'locked']);
  });

  it("pages by the kind's cursor, with a Link to the next page, and refuses a foreign cursor", async () => {
    const kind = new MemoryKind();
    for (const id of ['a', 'b', 'c']) kind.add({ id });
    const links: string[] = [];
    const res = {
      header: (_: string, value: string) => links.push(value),
    } as unknown as ReplyControl;
    const first = await service.page(kind, { limit: '2' }, res);
    expect(first.map((row) => row.id)).toEqual(['a', 'b']);
    expect(links).toEqual([expect.stringContaining('cursor=row-1')]);
    const next = await service.page(kind, { limit: '2', cursor: 'row-1' }, res);
    expect(next.map((row) => row.id)).toEqual(['c']);
    expect(links).toHaveLength(1);
    expect(await status(service.page(kind, { cursor: 'key_1' }, res))).toBe(400);
  });

  it('pages through the records of one external id, reading a bounded number a page', async () => {
    const kind = new MemoryKind();
    for (const [i, external_id] of ['acme', null, 'acme', 'other', 'acme'].entries()) {
      kind.add({ id: `r${i}`, external_id });
    }
    const links: string[] = [];
    const res = { header: (_: string, value: string) => links.push(value) } as ReplyControl;
    const bounded = new SubjectsService({} as QuotaService, settings, catalog, 3);
    const first = await bounded.page(kind, { external_id: 'acme' }, res);
    expect(first.map((row) => row.id)).toEqual(['r0', 'r2']);
    expect(links).toEqual([expect.stringContaining('cursor=row-2&external_id=acme')]);
    const rest = await bounded.page(kind, { external_id: 'acme', cursor: 'row-2' }, res);
    expect(rest.map((row) => row.id)).toEqual(['r4']);
    expect(links).toHaveLength(1);
    for (const external_id of ['', 'x'.repeat(201), 'tab\there', ['acme']]) {
      expect(await status(bounded.page(kind, { external_id }, res))).toBe(400);
    }
  });
});
