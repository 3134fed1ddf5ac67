"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.Me = exports.RevokedApiKey = exports.CreatedApiKey = exports.ApiKeyView = exports.CreateApiKeyInput = void 0;
const swagger_1 = require("@nestjs/swagger");
const fields_1 = require("../tools/fields");
const scopes_1 = require("./scopes");
class CreateApiKeyInput {
    name;
    scopes;
    scope_template;
    plan;
    daily_limit;
    rate_limit;
    expires_in_days;
}
exports.CreateApiKeyInput = CreateApiKeyInput;
__decorate([
    (0, fields_1.StringField)({
        description: 'A name to recognise the key by.',
        minLength: 1,
        maxLength: 100,
        example: 'ci-runner',
    }),
    __metadata("design:type", String)
], CreateApiKeyInput.prototype, "name", void 0);
__decorate([
    (0, fields_1.StringListField)({
        description: "Scopes to grant: services:read, services:execute, admin:read, admin:write, '<resource>:*' or '*'.",
        optional: true,
        maxItems: 20,
        example: ['services:read', 'services:execute'],
    }),
    __metadata("design:type", Array)
], CreateApiKeyInput.prototype, "scopes", void 0);
__decorate([
    (0, fields_1.StringField)({
        description: 'A named set of scopes, instead of `scopes`.',
        optional: true,
        enum: Object.keys(scopes_1.SCOPE_TEMPLATES),
    }),
    __metadata("design:type", String)
], CreateApiKeyInput.prototype, "scope_template", void 0);
__decorate([
    (0, fields_1.StringField)({
        description: 'Plan: free (default), pro or unlimited.',
        optional: true,
        maxLength: 50,
    }),
    __metadata("design:type", String)
], CreateApiKeyInput.prototype, "plan", void 0);
__decorate([
    (0, fields_1.IntField)({
        description: "Calls per UTC day, beating the plan's.",
        nullable: true,
        minimum: 0,
        maximum: 1_000_000_000,
    }),
    __metadata("design:type", Object)
], CreateApiKeyInput.prototype, "daily_limit", void 0);
__decorate([
    (0, fields_1.IntField)({
        description: "Calls per second, beating the plan's.",
        nullable: true,
        minimum: 1,
        maximum: 1_000_000,
    }),
    __metadata("design:type", Object)
], CreateApiKeyInput.prototype, "rate_limit", void 0);
__decorate([
    (0, fields_1.IntField)({
        description: 'Days until the key expires; none: never.',
        nullable: true,
        minimum: 1,
        maximum: 3650,
    }),
    __metadata("design:type", Object)
], CreateApiKeyInput.prototype, "expires_in_days", void 0);
class ApiKeyView {
    id;
    name;
    prefix;
    scopes;
    plan;
    daily_limit;
    rate_limit;
    created_at;
    expires_at;
    revoked_at;
    last_used_at;
    status;
}
exports.ApiKeyView = ApiKeyView;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'key_3f2a9c1d0b7e6a54' }),
    __metadata("design:type", String)
], ApiKeyView.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], ApiKeyView.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        description: 'The first characters of the key, to recognise it.',
        example: 'sk_1a2b3c4d',
    }),
    __metadata("design:type", String)
], ApiKeyView.prototype, "prefix", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: [String] }),
    __metadata("design:type", Array)
], ApiKeyView.prototype, "scopes", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], ApiKeyView.prototype, "plan", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', nullable: true }),
    __metadata("design:type", Object)
], ApiKeyView.prototype, "daily_limit", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', nullable: true }),
    __metadata("design:type", Object)
], ApiKeyView.prototype, "rate_limit", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], ApiKeyView.prototype, "created_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ nullable: true, type: String }),
    __metadata("design:type", Object)
], ApiKeyView.prototype, "expires_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ nullable: true, type: String }),
    __metadata("design:type", Object)
], ApiKeyView.prototype, "revoked_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ nullable: true, type: String }),
    __metadata("design:type", Object)
], ApiKeyView.prototype, "last_used_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['active', 'revoked', 'expired'] }),
    __metadata("design:type", String)
], ApiKeyView.prototype, "status", void 0);
class CreatedApiKey extends ApiKeyView {
    key;
}
exports.CreatedApiKey = CreatedApiKey;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'The key itself. Shown this once; only its hash is stored.' }),
    __metadata("design:type", String)
], CreatedApiKey.prototype, "key", void 0);
class RevokedApiKey {
    id;
    status;
}
exports.RevokedApiKey = RevokedApiKey;
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], RevokedApiKey.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['revoked'] }),
    __metadata("design:type", String)
], RevokedApiKey.prototype, "status", void 0);
class Me {
    key_id;
    name;
    scopes;
    plan;
    auth_method;
    created_at;
    expires_at;
}
exports.Me = Me;
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], Me.prototype, "key_id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], Me.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: [String] }),
    __metadata("design:type", Array)
], Me.prototype, "scopes", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], Me.prototype, "plan", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['api_key'] }),
    __metadata("design:type", String)
], Me.prototype, "auth_method", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], Me.prototype, "created_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ nullable: true, type: String }),
    __metadata("design:type", Object)
], Me.prototype, "expires_at", void 0);
//# sourceMappingURL=api-keys.dto.js.map