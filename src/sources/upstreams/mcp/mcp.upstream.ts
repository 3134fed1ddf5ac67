import { Client, ProtocolError, TRACEPARENT_META_KEY } from '@modelcontextprotocol/client';
import {
  PassedMethod,
  Upstream,
  UpstreamCallOptions,
  UpstreamError,
  UpstreamExtras,
  UpstreamResult,
  UpstreamTool,
  UpstreamToolList,
} from '../upstream';
import {
  currentExchange,
  Exchange,
  invalidAnswer,
  isInvalidAnswer,
  tooDeep,
  tooLarge,
  within,
} from './mcp-exchange';
import { upstreamTransport, type McpUpstreamOptions } from './mcp-transport';

export type { McpUpstreamOptions } from './mcp-transport';

/** At most this many tools of one upstream; the rest are left out. */
export const MAX_UPSTREAM_TOOLS = 1000;
/** A tool list of more pages than this is cut there. */
const MAX_PAGES = 50;
/** One message of a listing or of the connection: this, or SOURCE_MAX_RESULT_BYTES if larger. */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
/**
 * The SDK's own timeout of a call comes this long after the call's deadline, so that the deadline
 * (the call's signal, the runtime's 504) is what ends a call that takes too long.
 */
const TIMEOUT_GRACE_MS = 1000;
/** Backoff of a stdio child that exits: 0.5 s, doubling, at most 30 s. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A connection that lasted this long resets the backoff. */
const STABLE_MS = 30_000;

const VERSION = '1.0.0';

/**
 * An MCP server as a source, through the official client SDK (2.x): over Streamable HTTP (either
 * revision, the SDK negotiates) or a child process over stdio. One connection, opened on first use
 * and again after it closed; a closed connection tells the listeners (the service then lists the
 * tools again, which reconnects), after a backoff when a stdio child keeps exiting.
 */
export class McpUpstream implements Upstream {
  private client?: Promise<Client>;
  private readonly listeners: (() => void)[] = [];
  private closed = false;
  private failures = 0;
  private connectedAt = 0;
  private timer?: NodeJS.Timeout;
  /** What the last connection said it serves beside tools. */
  private served?: UpstreamExtras;

  constructor(private readonly options: McpUpstreamOptions) {}

  onToolsChanged(listener: () => void): void {
    this.listeners.push(listener);
  }

  async listTools(): Promise<UpstreamToolList> {
    const client = await this.connected();
    const tools: UpstreamTool[] = [];
    let beyond = 0;
    let cursor: string | undefined;
    const exchange = new Exchange(this.listBytes());
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await within(exchange, () =>
          client.listTools(cursor === undefined ? undefined : { cursor }, {
            timeout: this.options.timeoutMs,
            signal: exchange.signal,
          }),
        );
        for (const tool of listed.tools) {
          if (tools.length >= MAX_UPSTREAM_TOOLS) {
            beyond++;
            continue;
          }
          tools.push({
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: tool.inputSchema,
            outputSchema: tool.outputSchema,
            annotations: tool.annotations,
          });
        }
        cursor = listed.nextCursor;
        if (cursor === undefined) break;
      }
    } catch (error) {
      throw exchange.fault ?? this.failure(error);
    }
    // One line for all the tools past the bound: last_error names them, and is itself bounded.
    const omitted = beyond
      ? [
          {
            name: `${beyond} tools after the first ${MAX_UPSTREAM_TOOLS}`,
            reason: `a source has at most ${MAX_UPSTREAM_TOOLS} tools`,
          },
        ]
      : [];
    return { tools, omitted };
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamResult> {
    const result = await this.exchanged(options.signal, (client, signal) =>
      client.callTool(
        {
          name,
          arguments: args,
          ...(options.traceparent
            ? { _meta: { [TRACEPARENT_META_KEY]: options.traceparent } }
            : {}),
        },
        {
          signal,
          timeout: this.options.timeoutMs + TIMEOUT_GRACE_MS,
          onprogress: options.onProgress,
          resetTimeoutOnProgress: false,
        },
      ),
    );
    const answer: { content: unknown[]; structuredContent?: unknown; isError: boolean } = {
      content: Array.isArray(result.content) ? result.content : [],
      isError: result.isError === true,
    };
    if (result.structuredContent !== undefined) answer.structuredContent = result.structuredContent;
    return { kind: 'mcp', result: answer };
  }

  extras(): UpstreamExtras | undefined {
    return this.served;
  }

  /** One request of PASSED_METHODS sent as it came (one page of a list), bounded as a call is. */
  forward(
    method: PassedMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    return this.exchanged(signal, (client, bounded) =>
      client.request({ method, params }, { signal: bounded, timeout: this.options.timeoutMs }),
    );
  }

  /**
   * One request on the connection within an exchange of its own: its answer bounded in size and
   * depth, ended by `signal` (the deadline, the caller's cancel), the SDK's errors as the caller
   * sees them.
   */
  private async exchanged<T>(
    signal: AbortSignal,
    work: (client: Client, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const client = await this.connected();
    const exchange = new Exchange(this.options.maxResultBytes, signal);
    let result: T;
    try {
      result = await within(exchange, () => work(client, exchange.signal));
    } catch (error) {
      if (exchange.fault) throw exchange.fault;
      if (signal.aborted) throw error;
      throw this.failure(error);
    }
    // Over HTTP each message was bounded as it came (boundedFetch); a stdio child's is measured here.
    if (
      this.options.url === undefined &&
      Buffer.byteLength(JSON.stringify(result)) > this.options.maxResultBytes
    ) {
      throw tooLarge(this.options.source, this.options.maxResultBytes);
    }
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }

  /** The open connection, or a new one. */
  private connected(): Promise<Client> {
    if (this.closed) return Promise.reject(this.unavailable());
    if (!this.client) {
      // An exchange of its own: the connection's streams outlive the call that opened it.
      const opening = within(new Exchange(this.listBytes()), () => this.open());
      this.client = opening;
      opening.catch(() => {
        if (this.client === opening) this.client = undefined;
      });
    }
    return this.client.catch((error: unknown) => {
      throw this.failure(error);
    });
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: 'tool-invocation-service', version: VERSION });
    const transport = upstreamTransport(this.options, this.listBytes());
    client.setNotificationHandler('notifications/tools/list_changed', () => this.changed());
    // What the SDK could not read fails the request it answered (found by the async context).
    client.onerror = (error) => {
      if (isInvalidAnswer(error))
        currentExchange()?.fail(invalidAnswer(this.options.source, error));
    };
    await client.connect(transport, { timeout: this.options.timeoutMs });
    this.connectedAt = Date.now();
    const capabilities = client.getServerCapabilities() ?? {};
    this.served = {
      resources: capabilities.resources !== undefined,
      prompts: capabilities.prompts !== undefined,
      completions: capabilities.completions !== undefined,
      logging: capabilities.logging !== undefined,
    };
    // Set after connect: the client's own onclose handler is chained, not replaced.
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      this.lost(client);
    };
    return client;
  }

  /** The connection closed (a stdio child exited): listed again after a backoff. */
  private lost(client: Client): void {
    void this.client?.then((current) => {
      if (current === client) this.client = undefined;
    });
    if (this.closed) return;
    this.failures = Date.now() - this.connectedAt > STABLE_MS ? 0 : this.failures + 1;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, this.failures - 1));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.changed(), this.failures === 0 ? 0 : delay);
    this.timer.unref();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private listBytes(): number {
    return Math.max(MAX_LIST_BYTES, this.options.maxResultBytes);
  }

  /** How long a caller should wait before trying again. */
  retryAfterSeconds(): number {
    return Math.max(
      1,
      Math.ceil(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.failures) / 1000),
    );
  }

  private unavailable(): UpstreamError {
    const seconds = this.retryAfterSeconds();
    return new UpstreamError(
      'unavailable',
      `Source ${this.options.source} is unavailable. Retry after ${seconds} second${seconds === 1 ? '' : 's'}.`,
      seconds,
    );
  }

  /** An error of the SDK as the caller sees it: the upstream's own error 502, the rest 503. */
  private failure(error: unknown): UpstreamError {
    if (error instanceof UpstreamError) return error;
    if (isInvalidAnswer(error)) return invalidAnswer(this.options.source, error);
    // The SDK's schemas recurse into a message; a stdio child's is not measured as it comes.
    if (error instanceof RangeError) return tooDeep(this.options.source);
    if (error instanceof ProtocolError) {
      return new UpstreamError(
        'protocol',
        `Source ${this.options.source} answered an error: ${error.message.slice(0, 200)}`,
      );
    }
    return this.unavailable();
  }
}
