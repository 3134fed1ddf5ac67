import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ApiKeysCheck } from './checks/api-keys.check';
import { DataDirectoryCheck } from './checks/data-directory.check';
import { DiskSpaceCheck } from './checks/disk-space.check';
import { RuntimeVersionCheck } from './checks/runtime-version.check';
import { StoreCheck } from './checks/store.check';
import { DoctorController } from './doctor.controller';
import { DoctorService } from './doctor.service';

@Module({
  imports: [DiscoveryModule],
  controllers: [DoctorController],
  providers: [
    DoctorService,
    RuntimeVersionCheck,
    DataDirectoryCheck,
    StoreCheck,
    ApiKeysCheck,
    DiskSpaceCheck,
  ],
  exports: [DoctorService],
})
export class DoctorModule {}
