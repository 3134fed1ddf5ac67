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
  ApiTags,
} from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { decodePosition, nextPage, pageCursor, pageOfAll } from '../../kernel/http/page-cursor';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { ApiCursorPage } from '../../kernel/openapi/page.decorator';
import { invalidQueryValue, queryInts } from '../../kernel/validation/query';
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

const WEBHOOK_ID = /^wh_[0-9a-f]{16}$/;
/** A delivery's id (a page's `next_cursor`): its time and sequence in base 36, then random hex. */
const DELIVERY_ID = /^dlv_[0-9a-z]{12}[0-9a-f]{12}$/;
const BEFORE = {
  name: 'before',
  schema: { type: 'string' },
  description: 'The `next_before` of the previous page.',
} as const;

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

  /** The endpoints (at most 100), oldest first, a page at a time (`Link` to the next). */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listWebhooks', summary: 'Every endpoint (at most 100)' })
  @ApiCursorPage(WebhookList, { max: 100, default: 100 })
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<WebhookList> {
    const { limit } = queryInts(query, { limit: { min: 1, max: 100, default: 100 } });
    const after = query.cursor === undefined ? undefined : decodePosition(query.cursor, WEBHOOK_ID);
    if (after === null) {
      throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
    }
    const { page, next } = pageOfAll(await this.webhooks.list(), after, limit as number);
    const link = { path: WEBHOOKS_PATH, limit: limit as number };
    return { webhooks: page, next_cursor: nextPage(res, next, link) };
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

  /** Its deliveries, newest first, 30 days, a page at a time (`Link` to the next). */
  @Get(':id/deliveries')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "An endpoint's deliveries" })
  @ApiCursorPage(WebhookDeliveryPage, { max: 100, default: 50, alias: BEFORE })
  @ApiErrors(400, 403, 404)
  async deliveries(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<WebhookDeliveryPage> {
    const { limit } = queryInts(query, { limit: { min: 1, max: 100, default: 50 } });
    const from = pageCursor(query, 'before');
    if (from && (typeof from.value !== 'string' || !DELIVERY_ID.test(from.value))) {
      throw invalidQueryValue(from.name, 'the next_cursor of a page');
    }
    const found = await this.webhooks.deliveries(id, from?.value as string, limit as number);
    const link = { path: `${WEBHOOKS_PATH}/${id}/deliveries`, limit: limit as number };
    nextPage(res, found.next_cursor, link);
    return found;
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
