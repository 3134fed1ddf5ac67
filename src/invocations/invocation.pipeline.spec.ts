import type { DiscoveryService } from '@nestjs/core';
import { insufficientPermissions } from '../auth/auth.errors';
import type { AuthenticatedKey } from '../subjects/caller';
import { ApiError } from '../kernel/errors/api-error';
import { SubjectRecordChanged } from '../limits/call-counter';
import type { Call, InvocationStep } from './call';
import type { IdempotencyEntry } from '../idempotency/idempotency.service';
import { InvocationPipeline } from './invocation.pipeline';

/** A pipeline of the given steps, in order (what DiscoveryService finds in the application). */
function pipelineOf(...steps: InvocationStep[]): InvocationPipeline {
  const wrappers = steps.map((instance, order) => ({
    instance,
    order,
    isDependencyTreeStatic: () => true,
  }));
  const discovery = {
    getProviders: () => wrappers,
    getMetadataByDecorator: (_: unknown, wrapper: { order: number }) => ({ order: wrapper.order }),
  } as unknown as DiscoveryService;
  const pipeline = new InvocationPipeline(discovery);
  pipeline.onModuleInit();
  return pipeline;
}

const key = { id: 'key_1', scopes: [], revision: 4 } as unknown as AuthenticatedKey;

function invocation(): Call {
  return {
    transport: 'rest',
    authorization: ['Bearer sk_x'],
    client: '127.0.0.1',
    bearerErrorCodes: false,
  };
}

/** Authentication as the step does it: a cached copy unless the pipeline asks for the record itself. */
function authenticate(reads: boolean[]): InvocationStep {
  return {
    run(_call, _decided, { fresh }) {
      reads.push(fresh);
      return { caller: key, callerFromCache: !fresh };
    },
  };
}

describe('InvocationPipeline on a kept key record', () => {
  it('starts over once on the record itself when a count finds the record changed', async () => {
    const reads: boolean[] = [];
    const released: string[] = [];
    let counts = 0;
    const pipeline = pipelineOf(
      authenticate(reads),
      {
        run() {
          const attempt = counts++;
          const claim = {
            abandon: () => Promise.resolve(void released.push(`attempt ${attempt}`)),
          };
          if (attempt === 0) {
            return { headers: { 'X-Seen': attempt }, claim: claim as unknown as IdempotencyEntry };
          }
          return { headers: { 'X-Seen': attempt } };
        },
      },
      {
        run(_call, decided) {
          if (decided.claim) throw new SubjectRecordChanged();
        },
      },
    );
    const answer = { headers: {} };
    const decided = await pipeline.check(invocation(), answer);
    expect(reads).toEqual([false, true]);
    // What the first attempt claimed was given back; the second's headers are the answer's.
    expect(released).toEqual(['attempt 0']);
    expect(decided).toMatchObject({
      caller: key,
      callerFromCache: false,
      headers: { 'X-Seen': 1 },
    });
    expect(answer).toEqual({ headers: { 'X-Seen': 1 }, caller: key });
  });

  it('answers 503 when the record changes under every attempt', async () => {
    const reads: boolean[] = [];
    const pipeline = pipelineOf(authenticate(reads), {
      run() {
        throw new SubjectRecordChanged();
      },
    });
    await expect(pipeline.check(invocation())).rejects.toMatchObject({
      name: 'SubjectRecordChanged',
      message: 'The API key changed while the call was counted',
    });
    expect(reads).toEqual([false, true, true]);
  });

  it('makes a 403 again on the record itself, and only a 403 made on a cached copy', async () => {
    const reads: boolean[] = [];
    const pipeline = pipelineOf(authenticate(reads), {
      run() {
        throw insufficientPermissions();
      },
    });
    await expect(pipeline.check(invocation())).rejects.toMatchObject({ status: 403 });
    expect(reads).toEqual([false, true]);

    const refusals: boolean[] = [];
    const other = pipelineOf(authenticate(refusals), {
      run() {
        throw new ApiError(429, 'Rate limit exceeded');
      },
    });
    await expect(other.check(invocation())).rejects.toMatchObject({ status: 429 });
    expect(refusals).toEqual([false]);
  });
});
