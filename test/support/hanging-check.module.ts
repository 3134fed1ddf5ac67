import { Injectable, Module } from '@nestjs/common';
import { CheckOutcome, DoctorCheck, HealthCheck } from '../../src/tools/doctor/doctor-check';

/** A check whose subject never answers, mounted by a test like any module's own check. */
@DoctorCheck({ order: 95 })
@Injectable()
export class HangingCheck implements HealthCheck {
  readonly name = 'hanging_dependency';

  check(): Promise<CheckOutcome> {
    return new Promise<CheckOutcome>(() => undefined);
  }
}

@Module({ providers: [HangingCheck] })
export class HangingCheckModule {}
