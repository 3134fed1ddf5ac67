"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CurrentKey = exports.BearerErrorCodes = exports.Scopes = exports.Public = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
exports.Public = core_1.Reflector.createDecorator({ transform: () => true });
exports.Scopes = core_1.Reflector.createDecorator();
exports.BearerErrorCodes = core_1.Reflector.createDecorator({ transform: () => true });
exports.CurrentKey = (0, common_1.createParamDecorator)((_, ctx) => ctx.switchToHttp().getRequest().apiKey);
//# sourceMappingURL=auth.decorators.js.map