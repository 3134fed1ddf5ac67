import { TracingModule } from './tracing';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuditModule } from './audit';
import { SubjectsModule, InitialKeyBootstrap } from './subjects';
import { LedgerModule } from './ledger';
import {
  KeysRoutesModule,
  HealthRoutesModule,
  MetricsRoutesModule,
  ToolsRoutesModule,
  ToolRoutesModule,
  ReportsRoutesModule,
  InvocationsRoutesModule,
  OAuthRoutesModule,
  WebhooksRoutesModule,
  RunsRoutesModule,
  SourceToolsRoutesModule,
} from './transports/rest/rest.modules';
import { ConfigurationModule } from './configuration';
import { ConsoleModule } from './transports/console/console.module';
import { AllExceptionsFilter } from './kernel/errors/all-exceptions.filter';
import { HttpPlumbingModule } from './kernel/http/http.module';
import { InvocationGuard, InvocationModule } from './invocations';
import { LoggingModule, StderrLogCoreModule, StderrLoggingModule } from './logging';
import { McpModule, McpHttpModule } from './transports/mcp/mcp.module';
import { SettingsModule } from './kernel/settings/settings.module';
import { StoreModule } from './kernel/store/store.module';
import { TOOL_MODULES } from './tools';
import { DoctorModule } from './tools/doctor/doctor.module';
import { ToolsModule } from './tools/index';
import { SourcesModule } from './sources';
import { ApiValidationPipe } from './kernel/validation/validation.pipe';

type Imported = Type | DynamicModule;

export interface RootOptions {
  /** The tool modules; `TOOL_MODULES` (src/tools.ts) unless a test names others. */
  tools?: Imported[];
  /** Modules mounted beside the rest (in tests: a sample tool, a CallCheck). */
  imports?: Imported[];
}

/** The HTTP server: every route, CallChecks as the global guard, one pipe, one filter. */
@Module({})
export class AppModule {}

/** MCP over stdio for a local agent: the tools and CallChecks, logs on stderr, no HTTP. */
@Module({})
export class McpStdioModule {}

/** The operator CLI: settings, store, keys, the tools (their scopes) and doctor, no HTTP. */
@Module({})
export class CliModule {}

/** What every process shares: settings, the store and the configuration tree. */
const FOUNDATION: Imported[] = [
  SettingsModule,
  StoreModule,
  AuditModule,
  ConfigurationModule,
  TracingModule,
];

/**
 * The three root modules, side by side from one factory, so that what each mounts is read in one
 * place: the server, the stdio MCP server and the CLI run the same settings, store, keys and tools.
 */
export function rootModule(
  kind: 'server' | 'stdio' | 'cli',
  { tools = TOOL_MODULES, imports = [] }: RootOptions = {},
): DynamicModule {
  switch (kind) {
    case 'server':
      return {
        module: AppModule,
        imports: [
          ...FOUNDATION,
          HttpPlumbingModule,
          LoggingModule,
          InvocationModule,
          InvocationsRoutesModule,
          KeysRoutesModule,
          OAuthRoutesModule,
          ToolsRoutesModule,
          ToolRoutesModule,
          HealthRoutesModule,
          MetricsRoutesModule,
          McpHttpModule,
          ReportsRoutesModule,
          WebhooksRoutesModule,
          RunsRoutesModule,
          ConsoleModule,
          ...tools,
          ...imports,
          // After every tool module: the sources' tools' route comes after the native ones.
          SourceToolsRoutesModule,
        ],
        providers: [
          // Every keyed route and tool call: authenticate, scope, rate limit, credits (CallChecks).
          { provide: APP_GUARD, useExisting: InvocationGuard },
          // Then the body: strict types, unknown fields refused, pydantic-shaped 400s.
          { provide: APP_PIPE, useClass: ApiValidationPipe },
          // Whatever is thrown becomes {detail}.
          { provide: APP_FILTER, useClass: AllExceptionsFilter },
          InitialKeyBootstrap,
        ],
      };
    case 'stdio':
      return {
        module: McpStdioModule,
        imports: [
          ...FOUNDATION,
          // InvocationModule's REST guard is mounted (unused) in every process that runs CallChecks.
          HttpPlumbingModule,
          StderrLoggingModule,
          InvocationModule,
          ToolsModule,
          McpModule,
          ...tools,
          ...imports,
          SourcesModule,
        ],
      };
    case 'cli':
      return {
        module: CliModule,
        // The tools too: a key's per-tool scopes (services:execute:<tool>) name registered tools.
        imports: [
          ...FOUNDATION,
          StderrLogCoreModule,
          SubjectsModule,
          LedgerModule,
          ToolsModule,
          DoctorModule,
          ...tools,
          ...imports,
        ],
      };
  }
}
