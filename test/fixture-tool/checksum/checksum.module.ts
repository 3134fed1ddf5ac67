import { Module } from '@nestjs/common';
import { ConfigurationModule } from '../../../src/configuration/configuration.module';
import { ConfigKey } from '../../../src/configuration/configuration.types';
import { ChecksumController } from './checksum.controller';
import { ChecksumService } from './checksum.service';

@Module({
  imports: [
    ConfigurationModule.forFeature({
      name: 'checksum',
      description: 'The checksum tool.',
      keys: {
        chunk_bytes: ConfigKey.integer({
          default: 8_192,
          min: 1_024,
          max: 1_048_576,
          description: 'Bytes hashed between two progress reports.',
        }),
      },
    }),
  ],
  controllers: [ChecksumController],
  providers: [ChecksumService],
})
export class ChecksumModule {}
