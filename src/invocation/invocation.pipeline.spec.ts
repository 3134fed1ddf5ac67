import type { DiscoveryService } from '@nestjs/core';
import { insufficientPermissions } from '../auth/auth.errors';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { ApiError } from '../errors/api-error';
import { KeyRecordChanged } from '../store/accounting/call-counter';
import { Invocation, InvocationStep } from './invocation';
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

function invocation(): Invocation {
  return {
    transport: 'rest',
    authorization: ['Bearer sk_x'],
    client: '127.0.0.1',
    bearerErrorCodes: false,
    rateCounted: false,
    headers: {},
  };
}

/** Authentication as the step does it: a kept copy unless the pipeline asks for the record itself. */
function authenticate(reads: boolean[]): InvocationStep {
  return {
    run(call) {
      if (call.key) return;
      reads.push(call.freshKey === true);
      call.key = key;
      call.keyKept = call.freshKey !== true;
    },
  };
}

describe('InvocationPipeline on a kept key record', () => {
  it('starts over once on the record itself when a count finds the record changed', async () => {
    const reads: boolean[] = [];
    const undone: string[] = [];
    let counts = 0;
    const pipeline = pipelineOf(authenticate(reads), {
      run(call) {
        call.headers['X-Seen'] = counts;
        call.onRefused = [() => Promise.resolve(void undone.push(`attempt ${counts}`))];
        if (counts++ === 0) throw new KeyRecordChanged();
      },
    });
    const call = invocation();
    await pipeline.check(call);
    expect(reads).toEqual([false, true]);
    expect(undone).toEqual(['attempt 1']);
    expect(call).toMatchObject({ key, keyKept: false, freshKey: true, headers: { 'X-Seen': 1 } });
  });

  it('answers 503 when the record changes under every attempt', async () => {
    const reads: boolean[] = [];
    const pipeline = pipelineOf(authenticate(reads), {
      run() {
        throw new KeyRecordChanged();
      },
    });
    await expect(pipeline.check(invocation())).rejects.toMatchObject({
      name: 'KeyRecordChanged',
      message: 'The API key changed while the call was counted',
    });
    expect(reads).toEqual([false, true, true]);
  });

  it('makes a 403 again on the record itself, and only a 403 made on a kept copy', async () => {
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
