"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.coerce = coerce;
exports.classify = classify;
exports.expectation = expectation;
exports.checkValue = checkValue;
exports.parseRaw = parseRaw;
exports.parseTyped = parseTyped;
const TRUE_WORDS = new Set(['true', 'yes']);
const FALSE_WORDS = new Set(['false', 'no']);
const INTEGER_LITERAL = /^[+-]?\d+$/;
const DECIMAL_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const INTEGER_LIMIT = 2n ** 53n;
function coerce(raw) {
    const text = raw.trim();
    const word = text.toLowerCase();
    if (TRUE_WORDS.has(word))
        return { type: 'boolean', value: true };
    if (FALSE_WORDS.has(word))
        return { type: 'boolean', value: false };
    if (INTEGER_LITERAL.test(text)) {
        const big = BigInt(text);
        if (big <= INTEGER_LIMIT && big >= -INTEGER_LIMIT) {
            return { type: 'integer', value: Number(big) };
        }
        return { type: 'string', value: raw };
    }
    if (DECIMAL_LITERAL.test(text)) {
        const value = Number(text);
        if (Number.isFinite(value))
            return { type: 'float', value: value === 0 ? 0 : value };
    }
    return { type: 'string', value: raw };
}
function classify(value) {
    if (typeof value === 'boolean')
        return { type: 'boolean', value };
    if (typeof value === 'string')
        return { type: 'string', value };
    if (typeof value === 'number' && Number.isFinite(value)) {
        return Number.isInteger(value) && Math.abs(value) <= 2 ** 53
            ? { type: 'integer', value }
            : { type: 'float', value };
    }
    return undefined;
}
const TYPE_ERROR = {
    boolean: 'bool_type',
    integer: 'int_type',
    float: 'float_type',
    string: 'string_type',
};
const range = (min, max) => {
    if (min !== undefined && max !== undefined)
        return ` from ${min} to ${max}`;
    if (min !== undefined)
        return ` >= ${min}`;
    if (max !== undefined)
        return ` <= ${max}`;
    return '';
};
function stringExpectation(spec) {
    if (spec.choices) {
        return `one of ${spec.choices.join(', ')}${spec.caseInsensitive ? ' (any case)' : ''}`;
    }
    if (spec.check)
        return spec.check.expects;
    const { minLength, maxLength } = spec;
    if (minLength && maxLength)
        return `a string of ${minLength} to ${maxLength} characters`;
    if (maxLength)
        return `a string of at most ${maxLength} characters`;
    if (minLength)
        return `a string of at least ${minLength} characters`;
    return 'a string';
}
function expectation(spec) {
    switch (spec.type) {
        case 'boolean':
            return 'a boolean (true, false, yes or no, in any case)';
        case 'integer':
            return `an integer${range(spec.min, spec.max)}`;
        case 'float':
            return `a number${range(spec.min, spec.max)}`;
        case 'string':
            return stringExpectation(spec);
    }
}
function quote(spec, shown) {
    if (spec.secret)
        return 'a value that does not fit';
    const text = shown.length > 100 ? `${shown.slice(0, 100)}...` : shown;
    return `'${text}'`;
}
function reject(key, spec, type, shown) {
    return {
        ok: false,
        rejection: { type, msg: `${key} expects ${expectation(spec)}; got ${quote(spec, shown)}` },
    };
}
function checkBounds(key, spec, value, shown) {
    if (spec.min !== undefined && value < spec.min)
        return reject(key, spec, 'greater_than_equal', shown);
    if (spec.max !== undefined && value > spec.max)
        return reject(key, spec, 'less_than_equal', shown);
    return { ok: true, value };
}
function checkString(key, spec, original) {
    if (spec.choices) {
        const candidate = spec.caseInsensitive ? original.trim().toLowerCase() : original;
        return spec.choices.includes(candidate)
            ? { ok: true, value: candidate }
            : reject(key, spec, 'literal_error', original);
    }
    if (spec.minLength !== undefined && original.length < spec.minLength) {
        return reject(key, spec, 'string_too_short', original);
    }
    if (spec.maxLength !== undefined && original.length > spec.maxLength) {
        return reject(key, spec, 'string_too_long', original);
    }
    if (spec.check && !spec.check.test(original)) {
        return reject(key, spec, 'string_pattern_mismatch', original);
    }
    return { ok: true, value: original };
}
function checkValue(key, spec, coerced, original) {
    switch (spec.type) {
        case 'boolean':
            return coerced.type === 'boolean'
                ? { ok: true, value: coerced.value }
                : reject(key, spec, TYPE_ERROR.boolean, original);
        case 'integer':
            return coerced.type === 'integer'
                ? checkBounds(key, spec, coerced.value, original)
                : reject(key, spec, TYPE_ERROR.integer, original);
        case 'float':
            return coerced.type === 'integer' || coerced.type === 'float'
                ? checkBounds(key, spec, coerced.value, original)
                : reject(key, spec, TYPE_ERROR.float, original);
        case 'string':
            return checkString(key, spec, original);
    }
}
function parseRaw(key, spec, raw) {
    return checkValue(key, spec, coerce(raw), raw);
}
function parseTyped(key, spec, value) {
    if (typeof value === 'string')
        return parseRaw(key, spec, value);
    const classified = classify(value);
    const shown = JSON.stringify(value) ?? String(value);
    if (!classified)
        return reject(key, spec, TYPE_ERROR[spec.type], shown);
    if (spec.type === 'string')
        return checkString(key, spec, String(classified.value));
    return checkValue(key, spec, classified, shown);
}
//# sourceMappingURL=config.coercion.js.map