"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=authenticated-key.js.map