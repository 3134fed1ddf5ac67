import Negotiator from 'negotiator';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';

/**
 * Where `npm run build` writes the console (console/ built by Vite, then compressed): the same
 * place from src/transports/console (the tests) and dist/transports/console (the build).
 */
export const CONSOLE_BUILD_DIR = resolve(__dirname, '..', '..', '..', 'dist', 'console-ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The compressed forms the build writes beside a file, by Content-Encoding. */
const COMPRESSED = { br: '.br', gzip: '.gz' } as const;
type Encoding = keyof typeof COMPRESSED | 'identity';

/** One built file, as read at the first request: its bytes, and its compressed forms when built. */
export interface ConsoleAsset {
  type: string;
  /** Names carrying their content's hash (`assets/`) never change: cached for a year. */
  immutable: boolean;
  bodies: Partial<Record<Encoding, Buffer>>;
}

/** A file to send: its bytes and how they are encoded (`identity`: not at all). */
export interface ChosenBody {
  asset: ConsoleAsset;
  encoding: Encoding;
  body: Buffer;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * The built console, held in memory (a few hundred kilobytes): requests never reach the file
 * system, so no path a client sends can name a file outside it. A path that names no file and has
 * no extension is one of the console's own pages (`/console/keys`): it gets `index.html`, and the
 * console's router shows the page.
 */
export class ConsoleAssets {
  private constructor(private readonly files: ReadonlyMap<string, ConsoleAsset>) {}

  /** The files built under `dir`; none when the console was not built. */
  static load(dir = CONSOLE_BUILD_DIR): ConsoleAssets {
    const files = new Map<string, ConsoleAsset>();
    if (!existsSync(dir)) return new ConsoleAssets(files);
    const all = filesUnder(dir);
    const present = new Set(all);
    for (const path of all) {
      if (path.endsWith(COMPRESSED.br) || path.endsWith(COMPRESSED.gzip)) continue;
      const bodies: ConsoleAsset['bodies'] = { identity: readFileSync(path) };
      for (const [encoding, suffix] of Object.entries(COMPRESSED)) {
        if (present.has(path + suffix)) {
          bodies[encoding as Encoding] = readFileSync(path + suffix);
        }
      }
      const name = relative(dir, path).split(sep).join('/');
      files.set(name, {
        type: TYPES[extname(path)] ?? 'application/octet-stream',
        immutable: name.startsWith('assets/'),
        bodies,
      });
    }
    return new ConsoleAssets(files);
  }

  get built(): boolean {
    return this.files.has('index.html');
  }

  /** The file a path below /console names (`''` and the console's pages: index.html). */
  find(path: string): ConsoleAsset | undefined {
    const name = path.replace(/^\/+/, '');
    const file = this.files.get(name);
    if (file) return file;
    const last = name.slice(name.lastIndexOf('/') + 1);
    return last.includes('.') ? undefined : this.files.get('index.html');
  }

  /** The smallest form of `asset` the request accepts (brotli, then gzip, then none). */
  static choose(
    asset: ConsoleAsset,
    headers: Record<string, string | string[] | undefined>,
  ): ChosenBody {
    const available = (['br', 'gzip', 'identity'] as const).filter((e) => asset.bodies[e]);
    const wanted = new Negotiator({ headers }).encoding(available, { preferred: available });
    const encoding = (available as readonly string[]).includes(wanted)
      ? (wanted as Encoding)
      : 'identity';
    return { asset, encoding, body: asset.bodies[encoding] as Buffer };
  }
}
