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
exports.ApiValidationPipe = exports.MAX_BODY_DEPTH = exports.JSON_INVALID = exports.BODY_NOT_OBJECT = void 0;
exports.nestedDeeperThan = nestedDeeperThan;
exports.toIssues = toIssues;
exports.isPlainObject = isPlainObject;
const common_1 = require("@nestjs/common");
const api_error_1 = require("./api-error");
const TYPE_ERRORS = new Set([
    'string_type',
    'bool_type',
    'int_type',
    'float_type',
    'list_type',
    'dict_type',
]);
const FALLBACK_TYPES = {
    isString: 'string_type',
    isBoolean: 'bool_type',
    isInt: 'int_type',
    isNumber: 'float_type',
    isArray: 'list_type',
    isObject: 'dict_type',
    min: 'greater_than_equal',
    max: 'less_than_equal',
    minLength: 'string_too_short',
    maxLength: 'string_too_long',
    isIn: 'literal_error',
    isEnum: 'enum',
    isDefined: 'missing',
    isNotEmpty: 'string_too_short',
};
exports.BODY_NOT_OBJECT = {
    loc: ['body'],
    msg: 'Input should be a valid dictionary',
    type: 'dict_type',
};
exports.JSON_INVALID = {
    loc: ['body'],
    msg: 'JSON decode error',
    type: 'json_invalid',
};
exports.MAX_BODY_DEPTH = 32;
function nestedDeeperThan(value, limit) {
    const stack = [[value, 0]];
    while (stack.length) {
        const [node, depth] = stack.pop();
        if (node === null || typeof node !== 'object')
            continue;
        if (depth >= limit)
            return true;
        for (const child of Object.values(node))
            stack.push([child, depth + 1]);
    }
    return false;
}
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function issueFor(error, loc) {
    const constraints = Object.keys(error.constraints ?? {});
    if (constraints.includes('whitelistValidation')) {
        return { loc, msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    }
    if (error.value === undefined)
        return { loc, msg: 'Field required', type: 'missing' };
    const candidates = constraints.map((name) => {
        const context = error.contexts?.[name];
        return {
            type: context?.type ?? FALLBACK_TYPES[name] ?? 'value_error',
            msg: context?.msg ?? error.constraints?.[name] ?? 'Invalid value',
        };
    });
    const chosen = candidates.find((c) => TYPE_ERRORS.has(c.type)) ?? candidates[0];
    return { loc, msg: chosen.msg, type: chosen.type };
}
function toIssues(errors, loc = ['body']) {
    return errors.flatMap((error) => {
        const here = [...loc, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
        const own = error.constraints && Object.keys(error.constraints).length ? [issueFor(error, here)] : [];
        return [...own, ...toIssues(error.children ?? [], here)];
    });
}
function isPlainObject(value) {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
        return false;
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
}
let ApiValidationPipe = class ApiValidationPipe extends common_1.ValidationPipe {
    constructor() {
        super({
            transform: true,
            whitelist: true,
            forbidNonWhitelisted: true,
            forbidUnknownValues: false,
            transformOptions: { enableImplicitConversion: false },
            validationError: { target: false, value: true },
            exceptionFactory: (errors) => new api_error_1.ValidationFailed(toIssues(errors)),
        });
    }
    async transform(value, metadata) {
        if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
            const body = value === undefined ? {} : value;
            if (!isPlainObject(body))
                throw new api_error_1.ValidationFailed([exports.BODY_NOT_OBJECT]);
            if (nestedDeeperThan(body, exports.MAX_BODY_DEPTH)) {
                throw new api_error_1.ValidationFailed([
                    {
                        loc: ['body'],
                        msg: `Input is nested too deeply (more than ${exports.MAX_BODY_DEPTH} levels)`,
                        type: 'value_error',
                    },
                ]);
            }
            const poisoned = Object.keys(body).filter((key) => PROTOTYPE_KEYS.has(key));
            if (poisoned.length) {
                throw new api_error_1.ValidationFailed(poisoned.map((key) => ({
                    loc: ['body', key],
                    msg: 'Extra inputs are not permitted',
                    type: 'extra_forbidden',
                })));
            }
            return super.transform(body, metadata);
        }
        return super.transform(value, metadata);
    }
};
exports.ApiValidationPipe = ApiValidationPipe;
exports.ApiValidationPipe = ApiValidationPipe = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [])
], ApiValidationPipe);
//# sourceMappingURL=validation.js.map