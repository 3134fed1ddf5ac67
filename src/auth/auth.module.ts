import { Module } from '@nestjs/common';
import { OAuthModule } from '../oauth';
import { RunsModule } from '../runs';
import { SubjectsModule } from '../subjects';
import { Authentication } from './authentication';

/** Who calls: keys (subjects), principals of access tokens (oauth) and run tokens (runs). */
@Module({
  imports: [SubjectsModule, OAuthModule, RunsModule],
  providers: [Authentication],
  exports: [Authentication],
})
export class AuthModule {}
