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
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { Scopes } from '../../auth';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { queryInts } from '../../kernel/validation/query';
import {
  CreatedWebhook,
  CreateWebhookInput,
  RotatedWebhookSecret,
  RotateWebhookSecretInput,
  UpdateWebhookInput,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEventTypes,
  WebhookList,
  WebhooksService,
} from '../../webhooks';

export const WEBHOOKS_PATH = '/api/v1/webhooks';

const SECRET_HEADERS = {
  'Cache-Control': {
    description: '`no-store`: the answer holds a secret.',
    schema: { type: 'string' },
  },
};

/** Webhook endpoints: who receives which events, signed how (docs/webhooks.md). */
@ApiTags('webhooks')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** Every event the service sends, with the JSON Schema of its `data`. */
  @Get('event-types')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listWebhookEventTypes', summary: 'The event types' })
  @ApiOkResponse({ type: WebhookEventTypes })
  @ApiErrors(403)
  eventTypes(): WebhookEventTypes {
    return this.webhooks.eventTypes();
  }

  /** Subscribes a URL to events; its signing secret is in this answer only. */
  @Post()
  @Scopes(['admin:write'])
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'createWebhook', summary: 'Add an endpoint (secret shown once)' })
  @ApiCreatedResponse({ type: CreatedWebhook, headers: SECRET_HEADERS })
  @ApiErrors(...BODY_ERRORS, 403, 409)
  async create(
    @Body() input: CreateWebhookInput,
    @Actor() actor: AuditActor,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<CreatedWebhook> {
    const created = await this.webhooks.create(input, actor);
    res.header('Location', `${WEBHOOKS_PATH}/${created.id}`);
    return created;
  }

  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listWebhooks', summary: 'Every endpoint (at most 100)' })
  @ApiOkResponse({ type: WebhookList })
  @ApiErrors(403)
  async list(): Promise<WebhookList> {
    return { webhooks: await this.webhooks.list() };
  }

  @Get(':id')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getWebhook', summary: 'One endpoint' })
  @ApiOkResponse({ type: WebhookEndpointView })
  @ApiErrors(403, 404)
  get(@Param('id') id: string): Promise<WebhookEndpointView> {
    return this.webhooks.get(id);
  }

  /** Changes its URL, events or description, or disables or enables it. */
  @Patch(':id')
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Change an endpoint' })
  @ApiOkResponse({ type: WebhookEndpointView })
  @ApiErrors(...BODY_ERRORS, 403, 404)
  update(
    @Param('id') id: string,
    @Body() input: UpdateWebhookInput,
    @Actor() actor: AuditActor,
  ): Promise<WebhookEndpointView> {
    return this.webhooks.update(id, input, actor);
  }

  @Delete(':id')
  @Scopes(['admin:write'])
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Remove an endpoint and its deliveries' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(403, 404)
  async remove(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.webhooks.remove(id, actor);
  }

  /** A new secret (shown once); the previous one keeps signing beside it for `grace_seconds`. */
  @Post(':id/rotate-secret')
  @Scopes(['admin:write'])
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'rotateWebhookSecret', summary: 'Give an endpoint a new secret' })
  @ApiOkResponse({ type: RotatedWebhookSecret, headers: SECRET_HEADERS })
  @ApiErrors(...BODY_ERRORS, 403, 404)
  rotate(
    @Param('id') id: string,
    @Body() input: RotateWebhookSecretInput,
    @Actor() actor: AuditActor,
  ): Promise<RotatedWebhookSecret> {
    return this.webhooks.rotateSecret(id, input.grace_seconds, actor);
  }

  /** Its deliveries, newest first, 30 days; `before` pages back. */
  @Get(':id/deliveries')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "An endpoint's deliveries" })
  @ApiQuery({
    name: 'before',
    required: false,
    description: 'The `next_before` of the previous page.',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  })
  @ApiOkResponse({ type: WebhookDeliveryPage })
  @ApiErrors(400, 403, 404)
  deliveries(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<WebhookDeliveryPage> {
    const { limit } = queryInts(query, { limit: { min: 1, max: 100, default: 50 } });
    const before = typeof query.before === 'string' ? query.before : undefined;
    return this.webhooks.deliveries(id, before, limit as number);
  }

  /** Sends a failed delivery again, with the same `webhook-id`. */
  @Post(':id/deliveries/:delivery/retry')
  @Scopes(['admin:write'])
  @HttpCode(202)
  @ApiOperation({ operationId: 'retryWebhookDelivery', summary: 'Retry a failed delivery' })
  @ApiAcceptedResponse({ type: WebhookDeliveryView })
  @ApiErrors(403, 404, 409)
  retry(
    @Param('id') id: string,
    @Param('delivery') delivery: string,
  ): Promise<WebhookDeliveryView> {
    return this.webhooks.retry(id, delivery);
  }

  /** Sends a `webhook.test` event to the endpoint. */
  @Post(':id/test')
  @Scopes(['admin:write'])
  @HttpCode(202)
  @ApiOperation({ operationId: 'testWebhook', summary: 'Send a test event' })
  @ApiAcceptedResponse({ type: WebhookDeliveryView })
  @ApiErrors(403, 404, 409)
  test(@Param('id') id: string): Promise<WebhookDeliveryView> {
    return this.webhooks.test(id);
  }
}
