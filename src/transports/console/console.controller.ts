import { Controller, Get, Header, Inject, Param, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { IncomingHttpHeaders } from 'node:http';
import { Public } from '../../kernel/auth/auth.decorators';
import { ApiError } from '../../kernel/errors/api-error';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { contentSecurityPolicy } from '../../kernel/http/security';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { ConsoleAssets } from './console-assets';

export const CONSOLE_PATH = 'console';

/** What the console asks an issuer for when it signs in through it. */
export const CONSOLE_OAUTH_SCOPE = 'admin:read admin:write services:read services:execute';

/** How the console signs in through an issuer, when it may (`GET /console/config.json`). */
export interface ConsoleConfig {
  oauth: {
    issuer: string;
    client_id: string;
    redirect_uri: string;
    /** The REST resource (RFC 8707): the token's audience. */
    resource: string;
    scope: string;
  } | null;
}

export function consoleConfig(settings: Settings): ConsoleConfig {
  const oauth = settings.oauth;
  if (!oauth?.console) return { oauth: null };
  return {
    oauth: {
      issuer: oauth.console.issuer,
      client_id: oauth.console.clientId,
      redirect_uri: `${oauth.publicUrl}/${CONSOLE_PATH}/callback`,
      resource: oauth.publicUrl,
      scope: CONSOLE_OAUTH_SCOPE,
    },
  };
}

/**
 * The console's policy: helmet's, with scripts and styles from the service only (no inline
 * script, no inline style sheet; React sets element styles through the DOM, which a policy does
 * not govern), requests to the service only (and to the issuer it signs in through, if any: its
 * metadata and token endpoint), never framed, and without `upgrade-insecure-requests` (on a
 * plain-HTTP deployment it would send the console's own files to https://).
 */
export function consolePolicy(settings: Settings): string {
  const issuer = settings.oauth?.console?.issuer;
  return contentSecurityPolicy({
    connectSrc: ["'self'", ...(issuer ? [new URL(issuer).origin] : [])],
    fontSrc: ["'self'"],
    frameAncestors: ["'none'"],
    styleSrc: ["'self'"],
    upgradeInsecureRequests: null,
  });
}

/**
 * `GET /console`: the operator console, the files `npm run build` made of console/ (docs/console.md),
 * from memory, compressed as the client accepts (brotli or gzip, made at build time). Open to
 * everyone, as /docs is: the console holds no data; everything it shows comes from the API with
 * the key its user signs in with.
 */
@Public()
@ApiExcludeController()
@Controller()
export class ConsoleController {
  private assets?: ConsoleAssets;
  private readonly policy: string;
  private readonly config: ConsoleConfig;

  constructor(@Inject(SETTINGS) settings: Settings) {
    this.policy = consolePolicy(settings);
    this.config = consoleConfig(settings);
  }

  /** Whether and how the console signs in through an issuer; before the files' route. */
  @Get(`${CONSOLE_PATH}/config.json`)
  @Header('Cache-Control', 'no-cache')
  configuration(@Res({ passthrough: true }) res: ReplyControl): ConsoleConfig {
    res.header('Content-Security-Policy', this.policy);
    return this.config;
  }

  /**
   * The console's paths are at most two segments below it (`/console/keys/<id>`,
   * `/console/assets/<file>`): named parameters, which both adapters' routers take alike (their
   * wildcards differ), and nothing deeper is served.
   */
  @Get([CONSOLE_PATH, `${CONSOLE_PATH}/:first`, `${CONSOLE_PATH}/:first/:second`])
  file(
    @Param('first') first: string | undefined,
    @Param('second') second: string | undefined,
    @Req() req: { headers: IncomingHttpHeaders },
    @Res({ passthrough: true }) res: ReplyControl,
  ): StreamableFile {
    return this.send([first, second].filter(Boolean).join('/'), req, res);
  }

  private send(
    path: string,
    req: { headers: IncomingHttpHeaders },
    res: ReplyControl,
  ): StreamableFile {
    this.assets ??= ConsoleAssets.load();
    if (!this.assets.built) {
      throw new ApiError(404, 'The console is not built: run npm run build');
    }
    const asset = this.assets.find(path);
    if (!asset) throw new ApiError(404, 'Not Found');
    const { encoding, body } = ConsoleAssets.choose(asset, req.headers);
    res.header('Content-Security-Policy', this.policy);
    res.header('Vary', 'Accept-Encoding');
    res.header(
      'Cache-Control',
      asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    if (encoding !== 'identity') res.header('Content-Encoding', encoding);
    return new StreamableFile(body, { type: asset.type, length: body.length });
  }
}
