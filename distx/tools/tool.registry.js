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
exports.ToolRegistry = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const tool_decorator_1 = require("./tool.decorator");
const tool_schema_1 = require("./tool.schema");
let ToolRegistry = class ToolRegistry {
    discovery;
    scanner;
    reflector;
    tools = new Map();
    constructor(discovery, scanner, reflector) {
        this.discovery = discovery;
        this.scanner = scanner;
        this.reflector = reflector;
    }
    onModuleInit() {
        for (const wrapper of this.discovery.getControllers()) {
            const instance = wrapper.instance;
            if (!instance || !wrapper.isDependencyTreeStatic())
                continue;
            const prototype = Object.getPrototypeOf(instance);
            for (const method of this.scanner.getAllMethodNames(prototype)) {
                const handler = instance[method];
                const definition = this.reflector.get(tool_decorator_1.TOOL_METADATA, handler);
                if (!definition)
                    continue;
                if (this.tools.has(definition.name)) {
                    throw new Error(`Two tools are named '${definition.name}'`);
                }
                this.tools.set(definition.name, {
                    ...definition,
                    path: `/${tool_decorator_1.TOOLS_PATH}/${definition.name}`,
                    inputSchema: (0, tool_schema_1.jsonSchemaOf)(definition.input),
                    outputSchema: (0, tool_schema_1.jsonSchemaOf)(definition.output, false),
                    invoke: (input) => Promise.resolve(handler.call(instance, input)),
                });
            }
        }
    }
    list() {
        return [...this.tools.values()];
    }
    get(name) {
        return this.tools.get(name);
    }
};
exports.ToolRegistry = ToolRegistry;
exports.ToolRegistry = ToolRegistry = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [core_1.DiscoveryService,
        core_1.MetadataScanner,
        core_1.Reflector])
], ToolRegistry);
//# sourceMappingURL=tool.registry.js.map