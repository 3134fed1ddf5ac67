import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolCatalog } from '../auth/scopes';
import { ToolRegistry } from './tool.registry';
import { ToolsController } from './tools.controller';

@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [ToolsController],
  providers: [ToolRegistry, { provide: ToolCatalog, useExisting: ToolRegistry }],
  exports: [ToolRegistry, ToolCatalog],
})
export class ToolsModule {}
