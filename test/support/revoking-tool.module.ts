import { Body, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../src/audit/audit.context';
import { KeysService } from '../../src/subjects/keys.service';
import { SubjectsModule } from '../../src/subjects/subjects.module';
import { Tool, ToolController } from '../../src/tools/tool.decorator';

class RevokeSelfInput {}

class RevokeSelfResult {
  @ApiProperty() revoked: string;
}

/**
 * A test-only tool that revokes the key calling it: a key revoked in the middle of an MCP batch,
 * at a point the test chooses, without racing a second request.
 */
@ToolController()
class RevokeSelfController {
  constructor(private readonly keys: KeysService) {}

  @Tool({
    name: 'revoke_self',
    description: 'Revokes the calling key.',
    input: RevokeSelfInput,
    output: RevokeSelfResult,
  })
  async revokeSelf(@Body() _input: RevokeSelfInput, @Actor() actor: AuditActor) {
    const id = actor.actorKeyId as string;
    await this.keys.revoke(id, actor);
    return { revoked: id };
  }
}

@Module({ imports: [SubjectsModule], controllers: [RevokeSelfController] })
export class RevokeSelfToolModule {}
