import { onBothBackends } from '../../test/support/store-contract';
import { OVERRIDE_STORE } from './configuration.stores';

/** Resolves when `listen` has been called `times` times (the change's announcement). */
function announced(listen: (listener: () => void) => () => void, times = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const stop = listen(() => {
      if (++seen < times) return;
      stop();
      resolve();
    });
  });
}

onBothBackends('configuration overrides', OVERRIDE_STORE, (current, kind) => {
  it('keeps JSON values by key, replaces one on a second set, and forgets a deleted one', async () => {
    const { store } = current();
    expect(await store.getOverrides()).toEqual({});
    await store.setOverride('greet.greeting', 'Hej');
    await store.setOverride('tools.doctor.timeout_ms', 2500);
    await store.setOverride('logging.verbose', { nested: [true, null, 'x'] });
    await store.setOverride('greet.greeting', 'Salut');
    expect(await store.getOverrides()).toEqual({
      'greet.greeting': 'Salut',
      'tools.doctor.timeout_ms': 2500,
      'logging.verbose': { nested: [true, null, 'x'] },
    });
    await store.deleteOverride('greet.greeting');
    await store.deleteOverride('not.there');
    expect(await store.getOverrides()).toEqual({
      'tools.doctor.timeout_ms': 2500,
      'logging.verbose': { nested: [true, null, 'x'] },
    });
  });

  it('shows one connection what another wrote', async () => {
    const { store, another } = current();
    const other = await another();
    await other.setOverride('greet.greeting', 'Hola');
    expect(await store.getOverrides()).toEqual({ 'greet.greeting': 'Hola' });
  });

  it('announces its own changes to its listeners, and no more once one stops listening', async () => {
    const { store } = current();
    const calls: string[] = [];
    const stop = store.onOverridesChanged(() => calls.push('changed'));
    const set = announced((l) => store.onOverridesChanged(l));
    await store.setOverride('greet.greeting', 'Hej');
    await set;
    const removed = announced((l) => store.onOverridesChanged(l));
    await store.deleteOverride('greet.greeting');
    await removed;
    expect(calls.length).toBeGreaterThanOrEqual(2);
    stop();
    const after = calls.length;
    const last = announced((l) => store.onOverridesChanged(l));
    await store.setOverride('greet.greeting', 'Hallo');
    await last;
    expect(calls).toHaveLength(after);
  });

  if (kind !== 'redis') return;
  it("announces another instance's change: the backend is shared", async () => {
    const { store, another } = current();
    const other = await another();
    const heard = announced((l) => store.onOverridesChanged(l));
    await other.setOverride('greet.greeting', 'Ciao');
    await heard;
    expect(await store.getOverrides()).toEqual({ 'greet.greeting': 'Ciao' });
  });
});
