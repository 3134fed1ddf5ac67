import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit';
import { ApiError } from '../kernel/errors/api-error';
import { decodeCursor, encodeCursor } from './key-cursor';
import { badRequest, KEY_NOT_FOUND, KEY_REVOKED, type KeyUpdate } from './key-request';
import type { ApiKeyRecord, KeyPosition } from './key.store';
import { KeysService } from './keys.service';
import type { Holdings, SubjectKind } from './subjects.service';

export const KEYS_PATH = '/api/v1/auth/api-keys';

/**
 * Keys as subjects (SubjectsService): their records, paged by creation; a revoked key cannot be
 * changed (409); a change's scope template resolved and plan checked (400); removing one revokes it.
 */
@Injectable()
export class KeySubjects implements SubjectKind<ApiKeyRecord, KeyUpdate, KeyPosition> {
  readonly notFound = KEY_NOT_FOUND;
  readonly path = KEYS_PATH;

  constructor(private readonly keys: KeysService) {}

  find(id: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.find(id);
  }

  list(after: KeyPosition | undefined, limit: number): Promise<ApiKeyRecord[]> {
    return this.keys.list({ after, limit });
  }

  position({ created_at, id }: ApiKeyRecord): KeyPosition {
    return { created_at, id };
  }

  cursor(position: KeyPosition): string {
    return encodeCursor(position);
  }

  parse(cursor: unknown): KeyPosition | undefined {
    return decodeCursor(cursor) ?? undefined;
  }

  holdings(record: ApiKeyRecord): Holdings {
    const { id, scopes, plan, daily_limit, monthly_limit, rate_limit } = record;
    return { id, scopes, plan, daily_limit, monthly_limit, rate_limit };
  }

  refuseChange(record: ApiKeyRecord): void {
    if (record.revoked_at) throw new ApiError(409, KEY_REVOKED);
  }

  checked(changes: KeyUpdate): KeyUpdate {
    try {
      return this.keys.checkedUpdate(changes);
    } catch (error) {
      throw badRequest(error);
    }
  }

  update(record: ApiKeyRecord, changes: KeyUpdate, actor: AuditActor) {
    return this.keys.update(record, changes, actor);
  }

  remove(record: ApiKeyRecord, actor: AuditActor): Promise<boolean> {
    return this.keys.revoke(record.id, actor);
  }
}
