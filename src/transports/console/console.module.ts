import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller';

/**
 * The operator console (docs/console.md): its built files at /console. Everything it shows comes
 * from the API, the read-only routes of the reports feature under /api/v1/admin included.
 */
@Module({ controllers: [ConsoleController] })
export class ConsoleModule {}
