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
exports.BODY_ERRORS = exports.KEYED_ERRORS = exports.ValidationErrorResponse = exports.ValidationIssueView = exports.ErrorResponse = void 0;
exports.ApiErrors = ApiErrors;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
class ErrorResponse {
    detail;
}
exports.ErrorResponse = ErrorResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'What went wrong, as a sentence.', example: 'Not authenticated' }),
    __metadata("design:type", String)
], ErrorResponse.prototype, "detail", void 0);
class ValidationIssueView {
    loc;
    msg;
    type;
}
exports.ValidationIssueView = ValidationIssueView;
__decorate([
    (0, swagger_1.ApiProperty)({
        description: "Where the problem is: 'body', then the field name (and list index).",
        type: 'array',
        items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        example: ['body', 'name'],
    }),
    __metadata("design:type", Array)
], ValidationIssueView.prototype, "loc", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'The problem, for a person.', example: 'Field required' }),
    __metadata("design:type", String)
], ValidationIssueView.prototype, "msg", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        description: 'The problem, for a program (pydantic names): missing, string_type, bool_type, int_type, greater_than_equal, less_than_equal, string_too_short, string_too_long, extra_forbidden, literal_error, list_type, dict_type, json_invalid, value_error.',
        example: 'missing',
    }),
    __metadata("design:type", String)
], ValidationIssueView.prototype, "type", void 0);
class ValidationErrorResponse {
    detail;
}
exports.ValidationErrorResponse = ValidationErrorResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ type: [ValidationIssueView], description: 'One entry per problem.' }),
    __metadata("design:type", Array)
], ValidationErrorResponse.prototype, "detail", void 0);
const integerHeader = (description) => ({
    description,
    schema: { type: 'integer' },
});
const RETRY_AFTER = integerHeader('Seconds to wait before retrying.');
const RATE_LIMIT_HEADERS = {
    'Retry-After': RETRY_AFTER,
    'X-RateLimit-Limit': integerHeader('Requests allowed in the window.'),
    'X-RateLimit-Remaining': integerHeader('Requests left in the window.'),
    'X-RateLimit-Reset': integerHeader('Seconds until the window resets.'),
};
const ERRORS = {
    400: {
        description: 'The body does not match the schema, is not a JSON object (`dict_type`) or is not JSON (`json_invalid`). `detail` lists every problem.',
        example: { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
        validation: true,
    },
    401: {
        description: 'No usable key (`Not authenticated`) or an unknown, revoked or expired one (`Invalid API key`).',
        example: { detail: 'Not authenticated' },
        headers: {
            'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string' } },
        },
    },
    402: {
        description: "The key's daily quota is used up; it resets at the next UTC midnight.",
        example: { detail: 'Daily request limit exceeded (100/100). Resets in 5h 12m.' },
        headers: { 'Retry-After': integerHeader('Seconds until the next UTC midnight.') },
    },
    403: {
        description: 'The key lacks the scope this operation needs.',
        example: { detail: 'Insufficient permissions for this operation.' },
    },
    404: { description: 'No such resource.', example: { detail: 'API key not found' } },
    413: {
        description: 'The body is larger than the configured limit.',
        example: { detail: 'Request body too large: the limit is 1048576 bytes' },
    },
    415: {
        description: 'The body is not `application/json` (or `application/*+json`).',
        example: { detail: "Unsupported Media Type: send 'Content-Type: application/json'" },
    },
    429: {
        description: "Too many requests: the key's rate limit, or too many failed authentications from this address.",
        example: {
            detail: 'Rate limit exceeded: 5 requests per 1 second(s). Retry after 1 seconds.',
        },
        headers: RATE_LIMIT_HEADERS,
    },
    500: {
        description: 'An unexpected failure; it is logged, never described. Retry, then check /health.',
        example: { detail: 'Internal Server Error' },
    },
    503: {
        description: 'The data store cannot be reached; nothing is served unmetered. Retry shortly.',
        example: {
            detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
        },
        headers: { 'Retry-After': RETRY_AFTER },
    },
};
exports.KEYED_ERRORS = [401, 429, 500, 503];
exports.BODY_ERRORS = [400, 413, 415];
function ApiErrors(...statuses) {
    return (0, common_1.applyDecorators)((0, swagger_1.ApiExtraModels)(ErrorResponse, ValidationErrorResponse), ...statuses.map((status) => {
        const doc = ERRORS[status];
        if (!doc)
            throw new Error(`No documentation for error status ${status}`);
        return (0, swagger_1.ApiResponse)({
            status,
            description: doc.description,
            headers: doc.headers,
            content: {
                'application/json': {
                    schema: {
                        $ref: (0, swagger_1.getSchemaPath)(doc.validation ? ValidationErrorResponse : ErrorResponse),
                    },
                    example: doc.example,
                },
            },
        });
    }));
}
//# sourceMappingURL=api-errors.js.map