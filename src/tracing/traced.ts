import { spans } from '../kernel/common/tracing-gate';

/**
 * A method run in an INTERNAL span of that name when its call is recorded: a step of a call that
 * waits on I/O, whose store calls are its children; `when`, given the method's arguments, says
 * whether this call of it does (a rate its POST already counted does not). Off, the method is
 * left as written: decided once, when its class is defined (through the seam, `spans.decorate`).
 */
export function Traced<A extends unknown[]>(
  name: string,
  when?: (...args: A) => boolean,
): MethodDecorator {
  return (_target, _key, descriptor) =>
    spans.decorate(name, when as ((...args: never[]) => boolean) | undefined, descriptor);
}
