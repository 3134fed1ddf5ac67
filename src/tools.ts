import type { Type } from '@nestjs/common';
import { ConfigToolsModule } from './tools/config/config.module';
import { DoctorModule } from './tools/doctor/doctor.module';
import { GreetModule } from './tools/greet/greet.module';

/**
 * THE list of tool modules, one line a tool. The server (REST, discovery, OpenAPI, MCP over HTTP)
 * and the stdio MCP server are both built from it (src/app.module.ts): a tool added here is
 * everywhere at once.
 */
export const TOOL_MODULES: Type[] = [GreetModule, ConfigToolsModule, DoctorModule];
