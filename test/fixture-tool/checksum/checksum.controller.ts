import { Tool, ToolController } from '../../../src/tools/tool.decorator';
import type { ToolContext } from '../../../src/tools/tool-runner';
import { ChecksumInput, ChecksumResult } from './checksum.dto';
import { ChecksumService } from './checksum.service';

@ToolController()
export class ChecksumController {
  constructor(private readonly checksums: ChecksumService) {}

  @Tool({
    name: 'checksum',
    description: 'The checksum of a document (SHA-256 or SHA-512), reporting progress by chunk.',
    input: ChecksumInput,
    output: ChecksumResult,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    timeoutMs: 60_000,
    concurrency: 8,
    queue: 16,
    cost: 3,
    async: 'allowed',
  })
  checksum(input: ChecksumInput, context: ToolContext): Promise<ChecksumResult> {
    return this.checksums.checksum(input, context.signal, context.progress);
  }
}
