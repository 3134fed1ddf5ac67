/**
 * docker-compose.yml under a project name of its own, with an environment that names only what the
 * test chooses (no REDIS_URL or COMPOSE_* of the caller's shell, no `.env` of the checkout: an
 * environment file is always given), and the sweep that removes all it made.
 */
import { must, run, sleep } from './docker';

/** What the caller's environment must not pass to the compose file or the service. */
const INHERITED = /^(COMPOSE_|REDIS_|DATABASE_URL$|HTTP_PORT$|NODE_IMAGE$|NGINX_IMAGE$)/;

export class Compose {
  /** The environment file of the next commands: deploy/sentinel.env switches the profile on. */
  envFile: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly docker: string,
    private readonly command: string[],
    readonly project: string,
    emptyEnvFile: string,
    settings: Record<string, string>,
  ) {
    this.envFile = emptyEnvFile;
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !INHERITED.test(name)),
    );
    this.env = { ...env, ...settings };
  }

  private args(extra: string[]): string[] {
    const base = ['-f', 'docker-compose.yml', '-p', this.project, '--env-file', this.envFile];
    return [...this.command.slice(1), ...base, ...extra];
  }

  /** The services' containers, as `ps` last named them (until a command makes others). */
  private readonly ids = new Map<string, string>();

  /** A compose command; its stdout. */
  compose(extra: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
    if (['up', 'down', 'rm', 'create'].includes(extra[0])) this.ids.clear();
    return must(this.command[0], this.args(extra), { env: { ...this.env, ...env } });
  }

  /** A command in a running service's container, as the docs run it (`exec -T`); its stdout. */
  composeExec(service: string, command: string[]): Promise<string> {
    return this.compose(['exec', '-T', service, ...command]);
  }

  /** The same through `docker exec`, without compose's own start-up time. */
  async exec(service: string, command: string[]): Promise<string> {
    return must(this.docker, ['exec', await this.containerId(service), ...command]);
  }

  async containerId(service: string): Promise<string> {
    const known = this.ids.get(service);
    if (known) return known;
    const id = (await this.compose(['ps', '-q', service])).trim();
    if (!id) throw new Error(`no container of ${service}`);
    this.ids.set(service, id);
    return id;
  }

  async inspect(service: string, format: string): Promise<string> {
    const id = await this.containerId(service);
    return (await must(this.docker, ['inspect', '--format', format, id])).trim();
  }

  /** Waits until each service's health check says healthy; throws past `timeoutMs`. */
  async healthy(services: string[], timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const service of services) {
      for (;;) {
        const status = await this.inspect(
          service,
          '{{if .State.Health}}{{.State.Health.Status}}{{end}}',
        );
        if (status === 'healthy') break;
        if (Date.now() > deadline)
          throw new Error(`${service} is ${status || 'without a health check'}`);
        await sleep(500);
      }
    }
  }

  /**
   * Removes every container, network and volume of the project, the `sentinel` profile's
   * included: compose's `down -v`, then whatever still carries the project's label.
   */
  async sweep(): Promise<string[]> {
    await run(this.command[0], this.args(['down', '-v', '--remove-orphans', '-t', '5']), {
      env: { ...this.env, COMPOSE_PROFILES: 'sentinel' },
    });
    const label = `label=com.docker.compose.project=${this.project}`;
    const left: string[] = [];
    for (const [kind, list, remove] of [
      ['container', ['ps', '-aq', '--filter', label], ['rm', '-f', '-v']],
      ['network', ['network', 'ls', '-q', '--filter', label], ['network', 'rm']],
      ['volume', ['volume', 'ls', '-q', '--filter', label], ['volume', 'rm', '-f']],
    ] as const) {
      const ids = (await run(this.docker, [...list])).stdout.split('\n').filter(Boolean);
      if (ids.length) {
        left.push(`${ids.length} ${kind}(s)`);
        await run(this.docker, [...remove, ...ids]);
      }
    }
    return left;
  }
}
