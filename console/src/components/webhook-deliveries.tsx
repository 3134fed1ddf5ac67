import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useCursorPages } from './paging';
import {
  Button,
  Card,
  Empty,
  ErrorNotice,
  LoadingRows,
  Pager,
  StatusBadge,
  TableWrap,
  Time,
} from './ui';

type Delivery = Schemas['WebhookDeliveryView'];

const PAGE_SIZE = 25;
/** While a delivery is pending its attempts are read this often; otherwise less. */
const PENDING_MS = 2_000;
const IDLE_MS = 10_000;

function Answer({ delivery }: { delivery: Delivery }) {
  if (delivery.error) return <span className="cell-sub">{delivery.error}</span>;
  if (delivery.response_status !== null) {
    return <span className="mono">{delivery.response_status}</span>;
  }
  return <span className="cell-sub">{delivery.attempt ? '' : 'not sent yet'}</span>;
}

/** An endpoint's deliveries, newest first: attempts, answers, errors; Retry for a failed one. */
export function Deliveries({ endpointId, canRetry }: { endpointId: string; canRetry: boolean }) {
  const pages = useCursorPages<string>([endpointId]);
  const queries = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['webhooks', 'deliveries', endpointId, pages.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: {
            path: { id: endpointId },
            query: { limit: PAGE_SIZE, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
          },
        }),
      ),
    placeholderData: (previous) => previous,
    refetchInterval: (query) =>
      query.state.data?.deliveries.some((d) => d.status === 'pending') ? PENDING_MS : IDLE_MS,
  });
  const retry = useMutation({
    mutationFn: (delivery: string) =>
      ok(
        api.POST('/api/v1/webhooks/{id}/deliveries/{delivery}/retry', {
          params: { path: { id: endpointId, delivery } },
        }),
      ),
    onSettled: () => void queries.invalidateQueries({ queryKey: ['webhooks'] }),
  });
  const found = deliveries.data;
  // A delivery that stops pending changes its endpoint (failing since, or not): read it again.
  const pending = useRef(new Set<string>());
  useEffect(() => {
    if (!found) return;
    const now = new Set(found.deliveries.filter((d) => d.status === 'pending').map((d) => d.id));
    if ([...pending.current].some((id) => !now.has(id))) {
      void queries.invalidateQueries({ queryKey: ['webhooks', 'one', endpointId] });
    }
    pending.current = now;
  }, [found, queries, endpointId]);
  const columns = canRetry ? 7 : 6;
  return (
    <Card
      title="Deliveries"
      description="Newest first: one an event, with its attempts; kept 30 days"
      flush
      labelledBy="deliveries"
    >
      <ErrorNotice error={deliveries.error} />
      <ErrorNotice error={retry.error} title="Not retried" />
      <TableWrap label="Deliveries">
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col">Answer or error</th>
              <th scope="col">Stored</th>
              <th scope="col">Next attempt</th>
              {canRetry && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {deliveries.isPending && <LoadingRows columns={columns} rows={2} />}
            {found?.deliveries.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.id}>
                <td>
                  <span className="mono">{delivery.type}</span>
                  <div className="cell-sub mono">{delivery.event_id}</div>
                </td>
                <td>
                  <StatusBadge status={delivery.status} />
                </td>
                <td className="num">{delivery.attempt}</td>
                <td className="wrap">
                  <Answer delivery={delivery} />
                </td>
                <td>
                  <Time at={delivery.at} />
                </td>
                <td>
                  <Time at={delivery.next_attempt_at} empty="—" />
                </td>
                {canRetry && (
                  <td>
                    {delivery.status === 'failed' && (
                      <Button
                        small
                        disabled={retry.isPending && retry.variables === delivery.id}
                        onClick={() => retry.mutate(delivery.id)}
                        aria-label={`Retry the ${delivery.type} delivery ${delivery.id}`}
                      >
                        Retry
                      </Button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {found && found.deliveries.length === 0 && <Empty>Nothing delivered yet.</Empty>}
      </TableWrap>
      <Pager
        page={pages.number}
        hasPrevious={pages.number > 1}
        hasNext={found?.next_cursor != null}
        onPrevious={pages.previous}
        onNext={() => found?.next_cursor != null && pages.next(found.next_cursor)}
      />
    </Card>
  );
}
