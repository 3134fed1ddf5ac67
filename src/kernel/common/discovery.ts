import type { DiscoveryService } from '@nestjs/core';

/** A decorator made by DiscoveryService.createDecorator, carrying an order. */
type OrderedDecorator = Parameters<DiscoveryService['getMetadataByDecorator']>[0];

/**
 * The providers marked with `decorator` anywhere in the application, sorted by the order each
 * declares (then by `tiebreak`): how a module adds a CallCheck or a doctor check, by declaring
 * a provider. Providers of a request scope are left out (they have no instance to call).
 */
export function discoverInOrder<T>(
  discovery: DiscoveryService,
  decorator: OrderedDecorator,
  tiebreak: (a: T, b: T) => number = () => 0,
): T[] {
  return discovery
    .getProviders({ metadataKey: decorator.KEY })
    .filter((wrapper) => wrapper.isDependencyTreeStatic() && wrapper.instance)
    .map((wrapper) => ({
      instance: wrapper.instance as T,
      order:
        (discovery.getMetadataByDecorator(decorator, wrapper) as { order?: number } | undefined)
          ?.order ?? 1000,
    }))
    .sort((a, b) => a.order - b.order || tiebreak(a.instance, b.instance))
    .map(({ instance }) => instance);
}
