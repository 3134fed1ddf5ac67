import { Body } from '@nestjs/common';
import { Actor, type AuditActor } from '../../audit/audit.context';
import { Tool, ToolController } from '../tool.decorator';
import { DoctorInput, DoctorResult } from './doctor.dto';
import { DoctorService } from './doctor.service';

@ToolController()
export class DoctorController {
  constructor(private readonly doctor: DoctorService) {}

  @Tool({
    name: 'doctor',
    title: 'Run health checks',
    // Its fix removes invalid overrides; fixing twice does nothing more.
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    description: 'Run project health checks, optionally auto-fixing fixable issues.',
    input: DoctorInput,
    output: DoctorResult,
  })
  doctorTool(@Body() input: DoctorInput, @Actor() actor: AuditActor): Promise<DoctorResult> {
    return this.doctor.run(input.fix, actor);
  }
}
