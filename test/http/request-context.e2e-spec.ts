import { AsyncLocalStorage } from 'node:async_hooks';
import { bearer, startApp, TestApp } from '../support/app';
import { FailingToolModule } from '../support/failing-tool.module';

/**
 * On Node 20, one AsyncLocalStorage in use makes every promise of the process pay its hook: a
 * quarter of a tool call's throughput (docs/performance.md). What the layers of a request need of
 * it (its id, its key, the audit actor, the hook that keeps an idempotent answer) travels on the
 * request, the Invocation and the handlers' parameters instead; this pins that no route opens one.
 */
describe('request context without AsyncLocalStorage (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ imports: [FailingToolModule] });
  });
  afterAll(() => t.close());

  const mcpCall = (name: string, args: object) =>
    t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set(bearer(t.adminKey))
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  it('serves tools, key changes, MCP, verbose logging and errors without entering one', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    try {
      const tool = (name: string, body: object, headers: Record<string, string> = {}) =>
        t.http().post(`/api/v1/services/${name}`).set(bearer(t.adminKey)).set(headers).send(body);
      await tool('greet', { name: 'Ada' }).expect(200);
      await tool('greet', { name: 'Ada' }, { 'Idempotency-Key': 'ctx-1' }).expect(200);
      await tool('greet', { name: 'Ada' }, { 'Idempotency-Key': 'ctx-1' })
        .expect(200)
        .expect('Idempotent-Replayed', 'true');
      await tool('greet', { name: 7 }).expect(400);
      await tool('config_set', { key: 'logging.verbose', value: 'yes' }).expect(200);
      await tool('explode', {}).expect(500);
      await mcpCall('greet', { name: 'Ada' }).expect(200);
      await mcpCall('config_set', { key: 'logging.verbose', value: 'no' }).expect(200);
      const { id } = await t.createKeyWithId({ name: 'ctx' });
      await t
        .http()
        .post(`/api/v1/auth/api-keys/${id}/rotate`)
        .set(bearer(t.adminKey))
        .send({})
        .expect(201);
      await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey)).expect(200);
      await t.http().get('/api/v1/nowhere').set(bearer(t.adminKey)).expect(404);
      await t.http().post('/api/v1/services/greet').send({ name: 'Ada' }).expect(401);

      expect(run).not.toHaveBeenCalled();
      expect(enterWith).not.toHaveBeenCalled();
    } finally {
      run.mockRestore();
      enterWith.mockRestore();
    }
  });
});
