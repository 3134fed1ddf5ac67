import { useQuery } from '@tanstack/react-query';
import { api, ok } from './client';

/** The plans keys may be given (they change only with a restart). */
export function usePlans() {
  return useQuery({
    queryKey: ['admin', 'plans'],
    queryFn: () => ok(api.GET('/api/v1/admin/plans')),
    staleTime: 300_000,
  });
}

/** Every tool with its schemas, prices and hints. */
export function useToolDetails() {
  return useQuery({
    queryKey: ['admin', 'tools'],
    queryFn: () => ok(api.GET('/api/v1/admin/tools')),
    staleTime: 300_000,
  });
}
