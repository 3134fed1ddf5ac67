"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ValidationFailed = exports.ApiError = void 0;
const common_1 = require("@nestjs/common");
class ApiError extends common_1.HttpException {
    detail;
    headers;
    constructor(status, detail, headers = {}) {
        super({ detail }, status);
        this.detail = detail;
        this.headers = headers;
    }
}
exports.ApiError = ApiError;
class ValidationFailed extends ApiError {
    issues;
    constructor(issues) {
        super(400, issues);
        this.issues = issues;
    }
}
exports.ValidationFailed = ValidationFailed;
//# sourceMappingURL=api-error.js.map