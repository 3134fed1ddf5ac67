"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StringField = StringField;
exports.IntField = IntField;
exports.BoolField = BoolField;
exports.StringListField = StringListField;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const issue = (type, msg, extra = {}) => ({
    ...extra,
    context: { type, msg },
});
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
function presence(options) {
    if (options.nullable)
        return [(0, class_validator_1.ValidateIf)((_, value) => value !== undefined && value !== null)];
    if (options.optional)
        return [(0, class_validator_1.ValidateIf)((_, value) => value !== undefined)];
    return [];
}
function schema(options, extra) {
    return (0, swagger_1.ApiProperty)({
        description: options.description,
        required: !(options.optional || options.nullable),
        nullable: options.nullable || undefined,
        example: options.example,
        ...extra,
    });
}
function StringField(options) {
    const { minLength, maxLength } = options;
    return (0, common_1.applyDecorators)(...presence(options), (0, class_validator_1.IsString)(issue('string_type', 'Input should be a valid string')), ...(minLength !== undefined
        ? [
            (0, class_validator_1.MinLength)(minLength, issue('string_too_short', `String should have at least ${plural(minLength, 'character')}`)),
        ]
        : []), ...(maxLength !== undefined
        ? [
            (0, class_validator_1.MaxLength)(maxLength, issue('string_too_long', `String should have at most ${plural(maxLength, 'character')}`)),
        ]
        : []), ...(options.enum
        ? [
            (0, class_validator_1.IsIn)([...options.enum], issue('literal_error', `Input should be ${options.enum.map((v) => `'${v}'`).join(', ')}`)),
        ]
        : []), schema(options, {
        type: String,
        minLength,
        maxLength,
        enum: options.enum,
        default: options.default,
    }));
}
function IntField(options) {
    const { minimum, maximum } = options;
    return (0, common_1.applyDecorators)(...presence(options), (0, class_validator_1.IsInt)(issue('int_type', 'Input should be a valid integer')), ...(minimum !== undefined
        ? [
            (0, class_validator_1.Min)(minimum, issue('greater_than_equal', `Input should be greater than or equal to ${minimum}`)),
        ]
        : []), ...(maximum !== undefined
        ? [(0, class_validator_1.Max)(maximum, issue('less_than_equal', `Input should be less than or equal to ${maximum}`))]
        : []), schema(options, { type: 'integer', minimum, maximum, default: options.default }));
}
function BoolField(options) {
    return (0, common_1.applyDecorators)(...presence(options), (0, class_validator_1.IsBoolean)(issue('bool_type', 'Input should be a valid boolean')), schema(options, { type: Boolean, default: options.default }));
}
function StringListField(options) {
    return (0, common_1.applyDecorators)(...presence(options), (0, class_validator_1.IsArray)(issue('list_type', 'Input should be a valid list')), (0, class_validator_1.IsString)({ each: true, ...issue('string_type', 'Input should be a valid string') }), schema(options, { type: [String], maxItems: options.maxItems }));
}
//# sourceMappingURL=fields.js.map