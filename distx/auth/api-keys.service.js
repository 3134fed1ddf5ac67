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
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ApiKeysService = exports.KeyRequestError = void 0;
exports.keyStatus = keyStatus;
exports.toView = toView;
const common_1 = require("@nestjs/common");
const settings_1 = require("../settings/settings");
const store_1 = require("../store/store");
const api_key_1 = require("./api-key");
const scopes_1 = require("./scopes");
class KeyRequestError extends Error {
}
exports.KeyRequestError = KeyRequestError;
const TOUCH_INTERVAL_MS = 60_000;
function keyStatus(key, now = new Date()) {
    if (key.revoked_at)
        return 'revoked';
    if (key.expires_at && Date.parse(key.expires_at) <= now.getTime())
        return 'expired';
    return 'active';
}
function toView(key, now = new Date()) {
    return {
        id: key.id,
        name: key.name,
        prefix: key.prefix,
        scopes: key.scopes,
        plan: key.plan,
        daily_limit: key.daily_limit,
        rate_limit: key.rate_limit,
        created_at: key.created_at,
        expires_at: key.expires_at,
        revoked_at: key.revoked_at,
        last_used_at: key.last_used_at,
        status: keyStatus(key, now),
    };
}
let ApiKeysService = class ApiKeysService {
    store;
    settings;
    lastTouched = new Map();
    constructor(store, settings) {
        this.store = store;
        this.settings = settings;
    }
    resolveScopes(request) {
        if (request.scopes !== undefined && request.scope_template !== undefined) {
            throw new KeyRequestError('Give either scopes or scope_template, not both');
        }
        if (request.scope_template !== undefined) {
            const template = scopes_1.SCOPE_TEMPLATES[request.scope_template];
            if (!template) {
                throw new KeyRequestError(`Unknown scope template '${request.scope_template}'; expected one of: ${Object.keys(scopes_1.SCOPE_TEMPLATES).join(', ')}`);
            }
            return [...template];
        }
        return [...new Set(request.scopes ?? scopes_1.SCOPE_TEMPLATES.standard)];
    }
    async create(request, now = new Date()) {
        const record = this.buildRecord(request, now);
        const key = (0, api_key_1.generateApiKey)();
        const full = { ...record, prefix: (0, api_key_1.displayPrefix)(key), hash: (0, api_key_1.hashApiKey)(key) };
        await this.store.insertKey(full);
        return { key, record: full };
    }
    async createInitial(now = new Date()) {
        const record = this.buildRecord({ name: 'initial-admin', scope_template: 'admin', plan: this.settings.initialKeyPlan }, now);
        const key = (0, api_key_1.generateApiKey)();
        const full = { ...record, prefix: (0, api_key_1.displayPrefix)(key), hash: (0, api_key_1.hashApiKey)(key) };
        return (await this.store.insertKeyIfNone(full)) ? { key, record: full } : undefined;
    }
    buildRecord(request, now) {
        const plan = request.plan ?? this.settings.defaultPlan;
        if (!this.settings.plans[plan]) {
            throw new KeyRequestError(`Unknown plan '${plan}'; expected one of: ${Object.keys(this.settings.plans).join(', ')}`);
        }
        const days = request.expires_in_days;
        return {
            id: (0, api_key_1.generateKeyId)(),
            name: request.name,
            scopes: this.resolveScopes(request),
            plan,
            daily_limit: request.daily_limit ?? null,
            rate_limit: request.rate_limit ?? null,
            created_at: now.toISOString(),
            expires_at: days ? new Date(now.getTime() + days * 86_400_000).toISOString() : null,
            revoked_at: null,
            last_used_at: null,
        };
    }
    async authenticate(token, now = new Date()) {
        if (!api_key_1.API_KEY_PATTERN.test(token))
            return undefined;
        const record = await this.store.findKeyByHash((0, api_key_1.hashApiKey)(token));
        if (!record || keyStatus(record, now) !== 'active')
            return undefined;
        await this.touch(record.id, now);
        const { hash: _hash, ...key } = record;
        return key;
    }
    async touch(id, now) {
        const last = this.lastTouched.get(id) ?? 0;
        if (now.getTime() - last < TOUCH_INTERVAL_MS)
            return;
        this.lastTouched.set(id, now.getTime());
        await this.store.touchKey(id, now.toISOString());
    }
    list() {
        return this.store.listKeys();
    }
    find(id) {
        return this.store.findKeyById(id);
    }
    revoke(id, now = new Date()) {
        return this.store.revokeKey(id, now.toISOString());
    }
};
exports.ApiKeysService = ApiKeysService;
exports.ApiKeysService = ApiKeysService = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [store_1.Store, Object])
], ApiKeysService);
//# sourceMappingURL=api-keys.service.js.map