import { Link } from 'wouter';
import { useToolDetails } from '../api/queries';
import { useSigned } from '../auth';
import {
  ErrorNotice,
  formatNumber,
  LoadingRows,
  Notice,
  PageHead,
  TableWrap,
} from '../components/ui';
import type { PageDefinition } from '../pages';

function Tools() {
  const signed = useSigned();
  const tools = useToolDetails();
  return (
    <div className="stack">
      <PageHead
        title="Tools"
        description="Every tool: its price on each plan, its deadline and capacity, its schemas."
      />
      {!signed.canCallTools && (
        <Notice>
          This key holds no tool scope: the tools are shown, not called. Sign in with a key that
          also holds services:execute (or a tool's own scope) to call them from here.
        </Notice>
      )}
      <section className="card" aria-label="Tools">
        <ErrorNotice error={tools.error} />
        <TableWrap label="Tools">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Behaviour</th>
                <th scope="col">Cost by plan</th>
                <th scope="col" className="num">
                  Deadline
                </th>
                <th scope="col" className="num">
                  At once
                </th>
              </tr>
            </thead>
            <tbody>
              {tools.isPending && <LoadingRows columns={5} />}
              {tools.data?.tools.map((tool) => (
                <tr key={tool.name}>
                  <td className="wrap">
                    <Link href={`/tools/${tool.name}`} className="cell-title">
                      {tool.title}
                    </Link>{' '}
                    <span className="cell-sub mono">{tool.name}</span>
                    <div className="cell-sub">{tool.description}</div>
                  </td>
                  <td>
                    {tool.annotations.readOnlyHint ? (
                      <span className="badge good plain">read-only</span>
                    ) : (
                      <span className="badge warn plain">changes state</span>
                    )}
                  </td>
                  <td>
                    <span className="chips">
                      {Object.entries(tool.cost_by_plan).map(([plan, cost]) => (
                        <span key={plan} className="chip">
                          {plan} {formatNumber(cost)}
                        </span>
                      ))}
                    </span>
                  </td>
                  <td className="num">{formatNumber(tool.timeout_ms / 1000)} s</td>
                  <td className="num">{formatNumber(tool.concurrency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </section>
    </div>
  );
}

export const page: PageDefinition = {
  path: '/tools',
  title: 'Tools',
  nav: { label: 'Tools', order: 60, icon: 'tool' },
  component: Tools,
};
