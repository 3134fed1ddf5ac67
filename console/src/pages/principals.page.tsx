import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, listPage } from '../api/client';
import { useCursorPages } from '../components/paging';
import {
  Empty,
  ErrorNotice,
  LoadingRows,
  PageHead,
  Pager,
  StatusBadge,
  Time,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';

const PAGE_SIZE = 25;

function Principals() {
  const pages = useCursorPages<string>([]);
  const list = useQuery({
    queryKey: ['principals', 'list', pages.cursor],
    queryFn: () =>
      listPage(
        api.GET('/api/v1/auth/principals', {
          params: {
            query: { limit: PAGE_SIZE, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <div className="stack">
      <PageHead
        title="Principals"
        description="Whom OAuth access tokens speak for: one a subject of an issuer, known from its first token on."
      />
      <section className="card" aria-label="Principals">
        <ErrorNotice error={list.error} />
        <TableWrap label="Principals">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Issuer</th>
                <th scope="col">Client</th>
                <th scope="col">Status</th>
                <th scope="col">Plan</th>
                <th scope="col">Last seen</th>
                <th scope="col">First seen</th>
              </tr>
            </thead>
            <tbody>
              {list.isPending && <LoadingRows columns={7} />}
              {list.data?.items.map((principal) => (
                <tr key={principal.id}>
                  <td>
                    <Link href={`/principals/${principal.id}`} className="cell-title">
                      {principal.subject}
                    </Link>
                    <div className="cell-sub mono">{principal.id}</div>
                  </td>
                  <td className="mono">{principal.issuer}</td>
                  <td className="mono">{principal.client_id ?? '—'}</td>
                  <td>
                    <StatusBadge status={principal.enabled ? 'active' : 'disabled'} />
                  </td>
                  <td>{principal.plan}</td>
                  <td>
                    <Time at={principal.last_seen_at} />
                  </td>
                  <td>
                    <Time at={principal.first_seen_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data && list.data.items.length === 0 && (
            <Empty>No principal yet: one appears with its first access token.</Empty>
          )}
        </TableWrap>
        <Pager
          page={pages.number}
          hasPrevious={pages.number > 1}
          hasNext={!!list.data?.next}
          onPrevious={pages.previous}
          onNext={() => list.data?.next && pages.next(list.data.next)}
        />
      </section>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/principals',
  title: 'Principals',
  nav: { label: 'Principals', order: 30, icon: 'users' },
  component: Principals,
};
