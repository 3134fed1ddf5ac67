import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../docs/api-errors';
import { ApiError, ValidationFailed } from '../errors/api-error';
import { ApiKeysService, KeyRequestError, toView } from './api-keys.service';
import { ApiKeyView, CreateApiKeyInput, CreatedApiKey, Me, RevokedApiKey } from './api-keys.dto';
import { CurrentKey, Scopes } from './auth.decorators';
import type { AuthenticatedKey } from './authenticated-key';
import { hasScope } from './scopes';

@ApiTags('auth')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly keys: ApiKeysService) {}

  /** The calling key, as the service sees it. */
  @Get('me')
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

  /** Creates a key; its text is in this answer only. A caller cannot grant scopes it does not hold. */
  @Post('api-keys')
  @Scopes(['admin:write'])
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
    const beyond = scopes.filter((wanted) => !hasScope(caller.scopes, wanted));
    if (beyond.length) {
      throw new ApiError(
        403,
        `Insufficient permissions for this operation. Cannot grant scopes the calling key does not hold: ${beyond.join(', ')}`,
      );
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
  @ApiOkResponse({ type: [ApiKeyView] })
  @ApiErrors(403)
  async list(): Promise<ApiKeyView[]> {
    const now = new Date();
    return (await this.keys.list()).map((record) => toView(record, now));
  }

  /** Revokes a key: from now on it gets 401. */
  @Delete('api-keys/:id')
  @HttpCode(200)
  @Scopes(['admin:write'])
  @ApiOkResponse({ type: RevokedApiKey })
  @ApiErrors(403, 404)
  async revoke(@Param('id') id: string): Promise<RevokedApiKey> {
    if (!(await this.keys.revoke(id))) throw new ApiError(404, 'API key not found');
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
