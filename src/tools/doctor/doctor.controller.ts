import type { ToolContext } from '../index';
import { Tool, ToolController } from '../index';
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
  doctorTool(input: DoctorInput, call: ToolContext): Promise<DoctorResult> {
    return this.doctor.diagnose(input.fix, call, call.progress);
  }
}
