import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolRegistry } from './tool.registry';
import { ToolsController } from './tools.controller';

@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [ToolsController],
  providers: [ToolRegistry],
  exports: [ToolRegistry],
})
export class ToolsModule {}
