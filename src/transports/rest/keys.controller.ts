import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { ApiError } from '../../kernel/errors/api-error';
import { QuotaService, ApiUsage, historyDays, usageView, UsageView } from '../../limits';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import type { ApiKeyRecord, Caller } from '../../subjects';
import { invalidQueryValue, queryInts } from '../../kernel/validation/query';
import {
  toView,
  KeysService,
  badRequest,
  KEY_NOT_FOUND,
  KEY_REVOKED,
  ApiKeyView,
  CreateApiKeyInput,
  CreatedApiKey,
  Me,
  OAuthMe,
  RevokedApiKey,
  RotateApiKeyInput,
  UpdateApiKeyInput,
  CurrentCaller,
  escalates,
  mayManage,
  decodeCursor,
  encodeCursor,
} from '../../subjects';
import { Scopes, ToolCatalog, INSUFFICIENT_PERMISSIONS } from '../../auth';
import { nextLink } from '../../kernel/http/page-cursor';
import { ApiPage } from '../../kernel/openapi/page.decorator';

export const KEYS_PATH = '/api/v1/auth/api-keys';
const MAX_PAGE = 1000;

@ApiTags('auth')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/auth')
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly quota: QuotaService,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly catalog: ToolCatalog,
  ) {}

  /** The calling key, or the principal of the calling OAuth token, as the service sees it. */
  @Get('me')
  @ApiOperation({ operationId: 'getMe', summary: 'The calling key or OAuth principal' })
  @ApiExtraModels(Me, OAuthMe)
  @ApiOkResponse({
    schema: { oneOf: [{ $ref: getSchemaPath(Me) }, { $ref: getSchemaPath(OAuthMe) }] },
  })
  me(@CurrentCaller() key: Caller): Me | OAuthMe {
    if (key.kind === 'principal') {
      return {
        auth_method: 'oauth',
        principal_id: key.id,
        issuer: key.issuer,
        subject: key.subject,
        client_id: key.client_id,
        scopes: key.scopes,
        plan: key.plan,
        expires_at: key.expires_at,
      };
    }
    return {
      key_id: key.id,
      name: key.name,
      scopes: key.scopes,
      plan: key.plan,
      auth_method: 'api_key',
      created_at: key.created_at,
      expires_at: key.expires_at,
    };
  }

  /**
   * Creates a key; its text is in this answer only. A caller cannot grant a scope it does not hold,
   * nor a plan or limit more generous than its own.
   */
  @Post('api-keys')
  @Scopes(['admin:write'])
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create a key (shown once)' })
  @ApiCreatedResponse({
    type: CreatedApiKey,
    headers: {
      Location: { description: "The new key's path.", schema: { type: 'string' } },
      'Cache-Control': {
        description: '`no-store`: the answer holds a secret.',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(...BODY_ERRORS, 403)
  async create(
    @CurrentCaller() caller: Caller,
    @Body() input: CreateApiKeyInput,
    @Res({ passthrough: true }) res: ReplyControl,
    @Actor() actor: AuditActor,
  ): Promise<CreatedApiKey> {
    let scopes: string[];
    try {
      scopes = this.keys.resolveScopes(input);
    } catch (error) {
      throw badRequest(error);
    }
    if (escalates(caller, { ...input, scopes }, this.settings, this.catalog.costs())) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
    try {
      const { key, record } = await this.keys.create(input, actor);
      res.header('Location', `${KEYS_PATH}/${record.id}`);
      return { ...toView(record, this.keys.now()), key };
    } catch (error) {
      throw badRequest(error);
    }
  }

  /** Keys in creation order, never secrets; `limit` and `cursor` page through them. */
  @Get('api-keys')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List keys' })
  @ApiPage(ApiKeyView, MAX_PAGE)
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<ApiKeyView[]> {
    const { limit } = queryInts(query, { limit: { min: 1, max: MAX_PAGE, default: MAX_PAGE } });
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (after === null)
      throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
    const page = limit as number;
    const records = await this.keys.list({ after, limit: page + 1 });
    const now = this.keys.now();
    if (records.length > page) {
      const last = records[page - 1];
      res.header('Link', nextLink(KEYS_PATH, page, encodeCursor(last)));
    }
    return records.slice(0, page).map((record) => toView(record, now));
  }

  /** One key's view. */
  @Get('api-keys/:id')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getApiKey', summary: 'One key' })
  @ApiOkResponse({ type: ApiKeyView })
  @ApiErrors(403, 404)
  async get(@Param('id') id: string): Promise<ApiKeyView> {
    return toView(await this.found(id), this.keys.now());
  }

  /**
   * Changes a key: any of name, scopes, plan, limits, enabled. Effective from the next request on
   * any instance. The caller must hold every scope of the key, and cannot give more than it holds.
   */
  @Patch('api-keys/:id')
  @Scopes(['admin:write'])
  @ApiOperation({
    operationId: 'updateApiKey',
    summary: 'Change a key (enable, disable, limits, scopes)',
  })
  @ApiOkResponse({ type: ApiKeyView })
  @ApiErrors(...BODY_ERRORS, 403, 404, 409)
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() input: UpdateApiKeyInput,
    @Actor() actor: AuditActor,
  ): Promise<ApiKeyView> {
    const target = await this.manageable(caller, id);
    const changes = Object.fromEntries(
      Object.entries(input).filter(([, value]) => value !== undefined),
    ) as UpdateApiKeyInput;
    try {
      if (changes.scopes !== undefined) changes.scopes = this.keys.resolveScopes(changes);
      if (changes.plan !== undefined) this.keys.checkPlan(changes.plan);
    } catch (error) {
      throw badRequest(error);
    }
    if (escalates(caller, changes, this.settings, this.catalog.costs(), target.plan)) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
    const record = await this.keys.update(target, changes, actor);
    if (!record) throw new ApiError(404, KEY_NOT_FOUND);
    return toView(record, this.keys.now());
  }

  /**
   * A new secret for the key (shown once): same id, settings and usage. The old secret keeps
   * working for `grace_seconds`, then gets 401; one previous secret at a time.
   */
  @Post('api-keys/:id/rotate')
  @Scopes(['admin:write'])
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'rotateApiKey', summary: 'Give a key a new secret' })
  @ApiCreatedResponse({
    type: CreatedApiKey,
    headers: {
      Location: { description: "The key's path.", schema: { type: 'string' } },
      'Cache-Control': {
        description: '`no-store`: the answer holds a secret.',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(...BODY_ERRORS, 403, 404, 409)
  async rotate(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() input: RotateApiKeyInput,
    @Res({ passthrough: true }) res: ReplyControl,
    @Actor() actor: AuditActor,
  ): Promise<CreatedApiKey> {
    await this.manageable(caller, id);
    const rotated = await this.keys.rotate(id, input.grace_seconds ?? 0, actor);
    if (!rotated) throw new ApiError(404, KEY_NOT_FOUND);
    res.header('Location', `${KEYS_PATH}/${id}`);
    return { ...toView(rotated.record, this.keys.now()), key: rotated.key };
  }

  /** Usage of any key: today against its limit, and `days` UTC days of history. */
  @Get('api-keys/:id/usage')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getApiKeyUsage', summary: "A key's usage and history" })
  @ApiUsage()
  @ApiErrors(400, 403, 404)
  async usage(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<UsageView> {
    return usageView(this.quota, await this.found(id), historyDays(query));
  }

  /** Revokes a key: from now on it gets 401. Only a caller holding all that key holds may. */
  @Delete('api-keys/:id')
  @HttpCode(200)
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke a key' })
  @ApiOkResponse({ type: RevokedApiKey })
  @ApiErrors(403, 404)
  async revoke(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Actor() actor: AuditActor,
  ): Promise<RevokedApiKey> {
    const target = await this.found(id);
    if (!mayManage(caller, target, this.settings, this.catalog.costs()))
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    await this.keys.revoke(id, actor);
    return { id, status: 'revoked' };
  }

  private async found(id: string): Promise<ApiKeyRecord> {
    const target = await this.keys.find(id);
    if (!target) throw new ApiError(404, KEY_NOT_FOUND);
    return target;
  }

  /**
   * A key the caller may change: it exists (404), holds nothing the caller lacks (403: no scope, no
   * more generous limit), and is not revoked (409).
   */
  private async manageable(caller: Caller, id: string): Promise<ApiKeyRecord> {
    const target = await this.found(id);
    if (!mayManage(caller, target, this.settings, this.catalog.costs()))
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    if (target.revoked_at) throw new ApiError(409, KEY_REVOKED);
    return target;
  }
}
