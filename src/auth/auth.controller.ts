import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../docs/api-errors';
import { ApiError, ValidationFailed } from '../errors/api-error';
import { Settings, SETTINGS } from '../settings/settings';
import { ApiKeysService, KeyRequestError, toView } from './api-keys.service';
import { ApiKeyView, CreateApiKeyInput, CreatedApiKey, Me, RevokedApiKey } from './api-keys.dto';
import { CurrentKey, Scopes } from './auth.decorators';
import type { AuthenticatedKey } from './authenticated-key';
import { escalates, mayManage } from './escalation';
import { INSUFFICIENT_PERMISSIONS } from './auth.errors';

@ApiTags('auth')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** The calling key, as the service sees it. */
  @Get('me')
  @ApiOperation({ operationId: 'getMe', summary: 'The calling key, as the service sees it.' })
  @ApiOkResponse({ type: Me })
  me(@CurrentKey() key: AuthenticatedKey): Me {
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
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key, shown this once.' })
  @ApiCreatedResponse({ type: CreatedApiKey })
  @ApiErrors(...BODY_ERRORS, 403)
  async create(
    @CurrentKey() caller: AuthenticatedKey,
    @Body() input: CreateApiKeyInput,
  ): Promise<CreatedApiKey> {
    let scopes: string[];
    try {
      scopes = this.keys.resolveScopes(input);
    } catch (error) {
      throw badRequest(error);
    }
    if (escalates(caller, { ...input, scopes }, this.settings)) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
    try {
      const { key, record } = await this.keys.create(input);
      return { ...toView(record), key };
    } catch (error) {
      throw badRequest(error);
    }
  }

  /** Every key, without secrets. */
  @Get('api-keys')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listApiKeys', summary: 'Every key, never a secret.' })
  @ApiOkResponse({ type: [ApiKeyView] })
  @ApiErrors(403)
  async list(): Promise<ApiKeyView[]> {
    const now = new Date();
    return (await this.keys.list()).map((record) => toView(record, now));
  }

  /** Revokes a key: from now on it gets 401. Only a caller holding every scope of that key may. */
  @Delete('api-keys/:id')
  @HttpCode(200)
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke a key: from now on it gets 401.' })
  @ApiOkResponse({ type: RevokedApiKey })
  @ApiErrors(403, 404)
  async revoke(
    @CurrentKey() caller: AuthenticatedKey,
    @Param('id') id: string,
  ): Promise<RevokedApiKey> {
    const target = await this.keys.find(id);
    if (!target) throw new ApiError(404, 'API key not found');
    if (!mayManage(caller, target)) throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    await this.keys.revoke(id);
    return { id, status: 'revoked' };
  }
}

/** A refused key request as the 400 list of the error contract; any other error unchanged. */
function badRequest(error: unknown): unknown {
  if (!(error instanceof KeyRequestError)) return error;
  return new ValidationFailed(
    error.issues.map(({ loc, msg }) => ({ loc: ['body', ...loc], msg, type: 'value_error' })),
  );
}
