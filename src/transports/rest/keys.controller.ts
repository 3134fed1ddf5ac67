import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
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
import { ApiUsage, UsageView } from '../../limits';
import type { Caller } from '../../subjects';
import {
  toView,
  KeysService,
  KeySubjects,
  KEYS_PATH,
  badRequest,
  ApiKeyView,
  CreateApiKeyInput,
  CreatedApiKey,
  MAX_SUBJECT_PAGE,
  Me,
  OAuthMe,
  RevokedApiKey,
  RotateApiKeyInput,
  UpdateApiKeyInput,
  ApiExternalIdQuery,
  CurrentCaller,
  SubjectsService,
} from '../../subjects';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { RunMe, RunsService } from '../../runs';
import { ApiPage } from '../../kernel/openapi/page.decorator';

export { KEYS_PATH };

@ApiTags('auth')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/auth')
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly subjects: SubjectsService,
    private readonly kind: KeySubjects,
    private readonly runs: RunsService,
  ) {}

  /**
   * The calling key, the principal of the calling OAuth token, or the run of the calling run token
   * (the run, and its parent's kind and id only), as the service sees it.
   */
  @Get('me')
  @ApiOperation({ operationId: 'getMe', summary: 'The calling key, OAuth principal or run' })
  @ApiExtraModels(Me, OAuthMe, RunMe)
  @ApiOkResponse({
    schema: {
      oneOf: [Me, OAuthMe, RunMe].map((model) => ({ $ref: getSchemaPath(model) })),
    },
  })
  async me(@CurrentCaller() key: Caller): Promise<Me | OAuthMe | RunMe> {
    if (key.run) return this.runs.me(key);
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
    this.subjects.checkGrant(caller, { ...input, scopes });
    try {
      const { key, record } = await this.keys.create(input, actor);
      res.header('Location', `${KEYS_PATH}/${record.id}`);
      return { ...toView(record, this.keys.now()), key };
    } catch (error) {
      throw badRequest(error);
    }
  }

  /**
   * Keys in creation order, never secrets; `limit` and `cursor` page through them, `external_id`
   * keeps those of one external id (a bounded search: a page may hold fewer, while `Link` is set).
   */
  @Get('api-keys')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List keys' })
  @ApiExternalIdQuery()
  @ApiPage(ApiKeyView, MAX_SUBJECT_PAGE)
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<ApiKeyView[]> {
    const now = this.keys.now();
    return (await this.subjects.page(this.kind, query, res)).map((record) => toView(record, now));
  }

  /** One key's view. */
  @Get('api-keys/:id')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getApiKey', summary: 'One key' })
  @ApiOkResponse({ type: ApiKeyView })
  @ApiErrors(403, 404)
  async get(@Param('id') id: string): Promise<ApiKeyView> {
    return toView(await this.subjects.find(this.kind, id), this.keys.now());
  }

  /**
   * Changes a key: any of name, scopes, plan, limits, enabled, external id. Effective from the next request on
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
    const record = await this.subjects.change(this.kind, caller, id, { ...input }, actor);
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
    await this.subjects.changeable(this.kind, caller, id);
    const rotated = await this.keys.rotate(id, input.grace_seconds ?? 0, actor);
    if (!rotated) throw new ApiError(404, this.kind.notFound);
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
    return this.subjects.usage(this.kind, id, query);
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
    await this.subjects.remove(this.kind, caller, id, actor);
    return { id, status: 'revoked' };
  }
}
