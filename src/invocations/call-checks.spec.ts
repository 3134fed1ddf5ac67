import type { QuotaThresholds } from '../webhooks';
import type { DiscoveryService } from '@nestjs/core';
import type { AuthChallenges } from '../kernel/auth/challenges';
import { insufficientPermissions } from '../kernel/auth/auth.errors';
import type { IdempotencyCheck, IdempotencyEntry, IdempotencyService } from '../idempotency';
import { ApiError } from '../kernel/errors/api-error';
import { SubjectRecordChanged } from '../limits/call-counter';
import type { Charge, LimitsService } from '../limits';
import type { AuthenticatedKey } from '../subjects/caller';
import type { ToolRegistry } from '../tools/index';
import type { Authentication } from '../auth';
import type { Call } from './call';
import type { CallCheck } from './call-check';
import { CallChecks } from './call-checks';
import type { ToolSlots } from './tool-slots';

const key = {
  id: 'key_1',
  scopes: ['services:execute'],
  revision: 4,
} as unknown as AuthenticatedKey;

/** What the checks did, in order, and what they were answered: each collaborator's part. */
class Scene {
  readonly log: string[] = [];
  /** What each attempt's authentication read: the record itself (true) or a cached copy. */
  readonly reads: boolean[] = [];
  rate: (attempt: number) => void = () => undefined;
  credits: (attempt: number) => void = () => undefined;
  added: CallCheck['check'] = () => undefined;

  checks(): CallChecks {
    let rates = 0;
    let credits = 0;
    const added: CallCheck = { check: (call, caller) => this.added(call, caller) };
    const discovery = {
      getProviders: () => [{ instance: added, isDependencyTreeStatic: () => true }],
      getMetadataByDecorator: () => ({}),
    } as unknown as DiscoveryService;
    const authentication = {
      authenticate: (_call: Call, retried: boolean) => {
        this.reads.push(retried);
        return Promise.resolve({ caller: key, cached: !retried });
      },
    } as unknown as Authentication;
    const challenges = {
      insufficientScope: () => insufficientPermissions({}),
    } as unknown as AuthChallenges;
    const registry = {
      get: (name: string) => ({ name, runtime: { cost: 2, timeoutMs: 1000 } }),
    } as unknown as ToolRegistry;
    const slots = {
      reserve: () => {
        this.log.push('admission taken');
        return { release: () => this.log.push('admission given back') };
      },
    } as unknown as ToolSlots;
    const idempotencyCheck = {
      claim: () => {
        this.log.push('entry claimed');
        const entry = { abandon: () => Promise.resolve(void this.log.push('entry abandoned')) };
        return Promise.resolve(entry as unknown as IdempotencyEntry);
      },
    } as unknown as IdempotencyCheck;
    const limits = {
      chargeRate: () => {
        const attempt = rates++;
        this.log.push('rate counted');
        this.rate(attempt);
        const charge = { status: 'pending' } as Charge;
        return Promise.resolve({ charge, headers: { 'X-Seen': attempt } });
      },
      chargeCredits: () => {
        const attempt = credits++;
        this.log.push('credits counted');
        this.credits(attempt);
        const charge = { status: 'charged', state: { used: 2 } } as unknown as Charge;
        return Promise.resolve({ charge, headers: { 'X-Quota-Used': 2 } });
      },
    } as unknown as LimitsService;
    const checks = new CallChecks(
      discovery,
      authentication,
      challenges,
      registry,
      slots,
      {} as IdempotencyService,
      idempotencyCheck,
      limits,
      // No threshold crossed: what a charge that crosses one does is the webhooks' e2e.
      { check: () => undefined } as unknown as QuotaThresholds,
    );
    checks.onModuleInit();
    return checks;
  }
}

function toolCall(extra: Partial<Call> = {}): Call {
  return {
    transport: 'rest',
    authorization: ['Bearer sk_x'],
    client: '127.0.0.1',
    bearerErrorCodes: false,
    tool: 'greet',
    idempotencyKey: 'retry-1',
    body: {},
    ...extra,
  };
}

describe('CallChecks', () => {
  it('runs the checks in the contract order and answers what each decided', async () => {
    const scene = new Scene();
    const response = { headers: {} };
    const admitted = await scene.checks().check(toolCall(), response);
    expect(scene.log).toEqual([
      'admission taken',
      'rate counted',
      'entry claimed',
      'credits counted',
    ]);
    expect(admitted).toMatchObject({ caller: key, charge: { status: 'charged' } });
    expect(admitted.admission).toBeDefined();
    expect(admitted.entry).toBeDefined();
    expect(response).toEqual({
      headers: { 'X-Seen': 0, 'X-Quota-Used': 2 },
      caller: key,
      quota: { used: 2 },
    });
  });

  it("refuses at the scope and at a module's check before anything is taken or charged", async () => {
    const scene = new Scene();
    const checks = scene.checks();
    await expect(checks.check(toolCall({ scopes: ['admin:write'] }))).rejects.toMatchObject({
      status: 403,
    });
    scene.added = () => {
      throw new ApiError(451, 'Closed');
    };
    await expect(checks.check(toolCall())).rejects.toMatchObject({ status: 451 });
    expect(scene.log).toEqual([]);
  });

  it('starts over once on the record itself when a count finds the record changed', async () => {
    const scene = new Scene();
    scene.credits = (attempt) => {
      if (attempt === 0) throw new SubjectRecordChanged();
    };
    const response = { headers: {} };
    await scene.checks().check(toolCall(), response);
    expect(scene.reads).toEqual([false, true]);
    // What the first attempt took was given back; the second's headers are the answer's.
    expect(scene.log).toEqual([
      'admission taken',
      'rate counted',
      'entry claimed',
      'credits counted',
      'admission given back',
      'entry abandoned',
      'admission taken',
      'rate counted',
      'entry claimed',
      'credits counted',
    ]);
    expect(response.headers).toEqual({ 'X-Seen': 1, 'X-Quota-Used': 2 });
  });

  it('answers 503 when the record changes under every attempt', async () => {
    const scene = new Scene();
    scene.rate = () => {
      throw new SubjectRecordChanged();
    };
    await expect(scene.checks().check(toolCall())).rejects.toMatchObject({
      name: 'SubjectRecordChanged',
      message: 'The API key changed while the call was counted',
    });
    expect(scene.reads).toEqual([false, true, true]);
  });

  it('makes a 403 again on the record itself, and only a 403 made on a cached copy', async () => {
    const scene = new Scene();
    scene.added = () => {
      throw insufficientPermissions({});
    };
    await expect(scene.checks().check(toolCall())).rejects.toMatchObject({ status: 403 });
    expect(scene.reads).toEqual([false, true]);

    const other = new Scene();
    other.rate = () => {
      throw new ApiError(429, 'Rate limit exceeded');
    };
    await expect(other.checks().check(toolCall())).rejects.toMatchObject({ status: 429 });
    expect(other.reads).toEqual([false]);
    expect(other.log).toEqual(['admission taken', 'rate counted', 'admission given back']);
  });
});
