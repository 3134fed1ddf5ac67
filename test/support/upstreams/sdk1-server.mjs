// A small MCP server made with the official TypeScript SDK 1.x, an upstream for the sources'
// tests: `node sdk1-server.mjs stdio`, or `node sdk1-server.mjs http` (a free loopback port, printed
// as `listening <port>` on stdout; stateless Streamable HTTP).
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const tools = [
  { name: 'echo', description: 'Echoes its text.', inputSchema: object({ text: { type: 'string' } }, ['text']) },
  { name: 'headers', description: 'The HTTP headers it received.', inputSchema: object() },
  { name: 'env', description: 'The names of its environment variables.', inputSchema: object() },
  { name: 'wait', description: 'Waits until cancelled.', inputSchema: object() },
  { name: 'cancelled', description: 'How many calls were cancelled.', inputSchema: object() },
  { name: 'progress', description: 'Reports progress three times.', inputSchema: object() },
  { name: 'add_tool', description: 'Adds a tool and says so.', inputSchema: object() },
  { name: 'fail', description: 'A result that is an error.', inputSchema: object() },
  { name: 'big', description: 'A large text.', inputSchema: object({ bytes: { type: 'integer' } }, ['bytes']) },
  { name: 'pid', description: 'Its process id.', inputSchema: object() },
  { name: 'show', description: 'Named as a native tool is, behind the prefix config.', inputSchema: object() },
  { name: 'bad name!', description: 'A name no tool can have.', inputSchema: object() },
];
let cancelled = 0;
const servers = new Set();
const text = (value) => ({ content: [{ type: 'text', text: value }] });

function newServer() {
  const server = new Server({ name: 'sdk1-upstream', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'echo':
        return { ...text(args.text), structuredContent: { text: args.text } };
      case 'headers':
        return text(JSON.stringify(extra.requestInfo?.headers ?? {}));
      case 'env':
        return text(JSON.stringify(Object.keys(process.env).sort()));
      case 'wait':
        await new Promise((resolve) => {
          if (extra.signal.aborted) resolve();
          extra.signal.addEventListener('abort', () => {
            cancelled++;
            resolve();
          });
        });
        return text('cancelled');
      case 'cancelled':
        return text(String(cancelled));
      case 'progress': {
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= 3 && token !== undefined; i++) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
          // Work between the steps, as a real tool's: the client handles a notification a turn later.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return text('done');
      }
      case 'add_tool':
        if (!tools.some((tool) => tool.name === 'extra')) {
          tools.push({ name: 'extra', description: 'Added at run time.', inputSchema: object() });
        }
        for (const each of servers) await each.sendToolListChanged().catch(() => undefined);
        return text('added');
      case 'fail':
        return { ...text('it failed'), isError: true };
      case 'big':
        return text('x'.repeat(args.bytes));
      case 'pid':
        return text(String(process.pid));
      case 'show':
        return text('show');
      case 'extra':
        return text('extra');
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

if (process.argv[2] === 'http') {
  const http = createServer(async (req, res) => {
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
} else {
  const server = newServer();
  servers.add(server);
  await server.connect(new StdioServerTransport());
}
