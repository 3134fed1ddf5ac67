import { Clock } from '../../src/kernel/common/clock';

/** A clock the test moves by hand, to cross UTC midnight without waiting for it. */
export class FakeClock extends Clock {
  constructor(private current: Date) {
    super();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date): void {
    this.current = new Date(at);
  }
}
