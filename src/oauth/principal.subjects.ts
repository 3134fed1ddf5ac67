import { Inject, Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit';
import { ApiError, ValidationFailed } from '../kernel/errors/api-error';
import { decodePosition, encodePosition } from '../kernel/http/page-cursor';
import { planNamed, Settings, SETTINGS } from '../kernel/settings/settings';
import type {
  Holdings,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  SubjectKind,
} from '../subjects';
import { PrincipalsService } from './principals.service';

export const PRINCIPALS_PATH = '/api/v1/auth/principals';
const PRINCIPAL_ID = /^prn_[0-9a-f]{32}$/;
const PRINCIPAL_DISABLED =
  'Principal is disabled: its record is what refuses its tokens. Enable it before deleting it.';

/**
 * OAuth principals as subjects (SubjectsService): their records, paged by when they were first
 * seen; what one holds is every scope its tokens carried (all of them while none is recorded) and
 * its plan (the operator's, else its token's, else OAUTH_DEFAULT_PLAN); removing one deletes it
 * and its usage, which a disabled one may not (409: its record is what keeps it out).
 */
@Injectable()
export class PrincipalSubjects implements SubjectKind<
  PrincipalRecord,
  PrincipalChanges,
  PrincipalPosition
> {
  readonly notFound = 'Principal not found';
  readonly path = PRINCIPALS_PATH;

  constructor(
    private readonly principals: PrincipalsService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  find(id: string): Promise<PrincipalRecord | undefined> {
    return PRINCIPAL_ID.test(id) ? this.principals.find(id) : Promise.resolve(undefined);
  }

  list(after: PrincipalPosition | undefined, limit: number): Promise<PrincipalRecord[]> {
    return this.principals.list({ after, limit });
  }

  position({ first_seen_at, id }: PrincipalRecord): PrincipalPosition {
    return { first_seen_at, id };
  }

  cursor(position: PrincipalPosition): string {
    return encodePosition(position.first_seen_at, position.id);
  }

  parse(cursor: unknown): PrincipalPosition | undefined {
    const position = decodePosition(cursor, PRINCIPAL_ID);
    return position ? { first_seen_at: position[0], id: position[1] } : undefined;
  }

  holdings(record: PrincipalRecord): Holdings {
    return {
      id: record.id,
      scopes: record.scopes ?? ['*'],
      plan: this.principals.planOf(record),
      daily_limit: record.daily_limit,
      monthly_limit: record.monthly_limit,
      rate_limit: record.rate_limit,
    };
  }

  checked(changes: PrincipalChanges): PrincipalChanges {
    if (typeof changes.plan === 'string' && !planNamed(this.settings.plans, changes.plan)) {
      throw new ValidationFailed([
        {
          loc: ['body', 'plan'],
          msg: `Unknown plan '${changes.plan}'; expected one of: ${Object.keys(this.settings.plans).join(', ')}`,
          type: 'value_error',
        },
      ]);
    }
    return changes;
  }

  update(record: PrincipalRecord, changes: PrincipalChanges, actor: AuditActor) {
    return this.principals.update(record, changes, actor);
  }

  refuseRemoval(record: PrincipalRecord): void {
    if (!record.enabled) throw new ApiError(409, PRINCIPAL_DISABLED);
  }

  remove(record: PrincipalRecord, actor: AuditActor): Promise<boolean> {
    return this.principals.delete(record.id, actor);
  }
}
