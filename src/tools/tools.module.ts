import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolCatalog } from '../kernel/auth/scopes';
import { ToolRegistry } from './tool.registry';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [ToolRegistry, { provide: ToolCatalog, useExisting: ToolRegistry }],
  exports: [ToolRegistry, ToolCatalog],
})
export class ToolsModule {}
