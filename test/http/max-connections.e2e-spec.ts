import type { Server } from 'node:http';
import { connect, Socket } from 'node:net';
import { loadSettings } from '../../src/kernel/settings/settings';
import { startApp, TestApp } from '../support/app';
import { listenOnLoopback } from '../support/raw-http';

const REQUEST = 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n';

/** A keep-alive connection: what came back so far, and whether the server closed it. */
interface Connection {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

function open(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({ socket, received: () => received, closed: closed.then(() => undefined) }),
    );
  });
}

/** Sends one request on the connection and waits for its whole answer (a small JSON body). */
async function ask(connection: Connection): Promise<string> {
  const before = connection.received().length;
  connection.socket.write(REQUEST);
  const deadline = Date.now() + 5000;
  while (!/\r\n\r\n\{.*\}$/s.test(connection.received().slice(before))) {
    if (Date.now() > deadline) throw new Error('no answer');
    await new Promise((done) => setTimeout(done, 10));
  }
  return connection.received().slice(before);
}

describe('HTTP_MAX_CONNECTIONS (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startApp({ env: { HTTP_MAX_CONNECTIONS: '2' } });
    port = await listenOnLoopback(t.app);
  });
  afterAll(() => t.close());

  it('closes a connection past the cap at accept, without an answer, and takes one again once a slot frees', async () => {
    const first = await open(port);
    const second = await open(port);
    // Both served and kept open (keep-alive), holding the two slots.
    expect(await ask(first)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await ask(second)).toMatch(/^HTTP\/1\.1 200 /);

    const third = await open(port);
    third.socket.write(REQUEST);
    await Promise.race([
      third.closed,
      new Promise((_, fail) =>
        setTimeout(() => fail(new Error('the connection past the cap stayed open')), 3000),
      ),
    ]);
    expect(third.received()).toBe('');

    first.socket.destroy();
    await first.closed;
    // The server sees the close a moment later; until then the slot is still taken.
    const server = t.app.getHttpServer() as Server;
    while ((await new Promise<number>((done) => server.getConnections((_, n) => done(n)))) > 1) {
      await new Promise((done) => setTimeout(done, 10));
    }
    const fourth = await open(port);
    expect(await ask(fourth)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await ask(second)).toMatch(/^HTTP\/1\.1 200 /);
    fourth.socket.destroy();
    second.socket.destroy();
  });

  it('defaults to 10,000 and refuses a value that is not a whole number >= 1 at start-up', () => {
    expect(loadSettings({}).httpMaxConnections).toBe(10_000);
    expect(loadSettings({ HTTP_MAX_CONNECTIONS: '50' }).httpMaxConnections).toBe(50);
    for (const bad of ['0', '-1', 'many', '1.5']) {
      expect(() => loadSettings({ HTTP_MAX_CONNECTIONS: bad })).toThrow(
        `Invalid environment: HTTP_MAX_CONNECTIONS must be a whole number >= 1, got '${bad}'`,
      );
    }
    expect((t.app.getHttpServer() as Server).maxConnections).toBe(2);
  });
});
