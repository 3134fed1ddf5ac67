import type { Schemas } from '../api/client';
import { ToolFigure } from './charts';
import { Card, Empty, formatLimit, formatNumber, Loading, TableWrap } from './ui';

type Usage = Schemas['UsageView'];

interface MonthFigures {
  month: string;
  calls: number;
  credits: number;
  failed: number;
}

/** The history's days summed by UTC month, newest first. */
export function monthsOf(history: Usage['history']): MonthFigures[] {
  const months = new Map<string, MonthFigures>();
  for (const day of history) {
    const month = day.date.slice(0, 7);
    const figures = months.get(month) ?? { month, calls: 0, credits: 0, failed: 0 };
    for (const tool of Object.values(day.by_tool)) {
      figures.calls += tool.calls;
      figures.credits += tool.credits;
      figures.failed += tool.failed;
    }
    months.set(month, figures);
  }
  return [...months.values()];
}

function monthName(month: string): string {
  return new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

function Meter({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const share = limit ? Math.min(1, used / limit) : 0;
  return (
    <div className="meter-row">
      <span>
        <span className="cell-title">{label}</span>
      </span>
      <span className="mono">
        {formatNumber(used)} / {formatLimit(limit)}
      </span>
      <span
        className="progress-track"
        role="meter"
        aria-label={`${label}: ${used} of ${limit ?? 'no limit'}`}
        aria-valuemin={0}
        aria-valuemax={limit ?? used}
        aria-valuenow={used}
      >
        <span
          className={`progress-fill ${share >= 0.9 ? 'meter-fill-danger' : ''}`}
          style={{ width: `${share * 100}%`, display: 'block' }}
        />
      </span>
    </div>
  );
}

/** A key's or principal's usage: today and this month against their limits, 90 days by tool, months. */
export function UsageSection({ usage, error }: { usage?: Usage; error?: unknown }) {
  if (error) return null;
  return (
    <>
      <div className="grid two">
        <Card title="Limits" description="Credits counted against them" labelledBy="limits">
          {!usage ? (
            <Loading />
          ) : (
            <div className="stack">
              <Meter label="Today (UTC)" used={usage.used} limit={usage.daily_limit} />
              <Meter
                label="This month (UTC)"
                used={usage.monthly?.used ?? monthsOf(usage.history)[0]?.credits ?? 0}
                limit={usage.monthly?.limit ?? null}
              />
              <p className="hint">
                Plan <strong>{usage.plan}</strong>. The day resets at{' '}
                {usage.resets_at.slice(11, 16)} UTC
                {usage.monthly ? `, the month on ${usage.monthly.resets_at.slice(0, 10)}` : ''}.
              </p>
            </div>
          )}
        </Card>
        <Card title="Monthly figures" description="From the last 90 days" flush labelledBy="months">
          {!usage ? (
            <div className="card-body">
              <Loading />
            </div>
          ) : (
            <TableWrap label="Monthly figures">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Month</th>
                    <th scope="col" className="num">
                      Calls
                    </th>
                    <th scope="col" className="num">
                      Credits
                    </th>
                    <th scope="col" className="num">
                      Failed
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {monthsOf(usage.history).map((month) => (
                    <tr key={month.month}>
                      <td>{monthName(month.month)}</td>
                      <td className="num">{formatNumber(month.calls)}</td>
                      <td className="num">{formatNumber(month.credits)}</td>
                      <td className="num">{formatNumber(month.failed)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Card>
      </div>
      <Card title="Calls by tool" description="Last 90 days, by UTC day" labelledBy="usage-chart">
        {!usage ? (
          <Loading label="Loading usage" />
        ) : usage.history.every((day) => Object.keys(day.by_tool).length === 0) ? (
          <Empty>No calls in the last 90 days.</Empty>
        ) : (
          <ToolFigure days={usage.history} label="Usage" />
        )}
      </Card>
    </>
  );
}
