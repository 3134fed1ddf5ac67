import { lazy, type ReactNode, Suspense } from 'react';
import type { DailyPoint, ToolDay } from '../charts/charts';
import { formatNumber, TableWrap } from './ui';

const DailyChart = lazy(() => import('../charts/charts').then((m) => ({ default: m.DailyChart })));
const ToolStackChart = lazy(() =>
  import('../charts/charts').then((m) => ({ default: m.ToolStackChart })),
);

/**
 * A chart as one image with a summary for screen readers, and its figures as a table beside it
 * (the chart's library is loaded when a chart is first shown, not with the console).
 */
function Figure({
  label,
  children,
  table,
  height,
}: {
  label: string;
  children: ReactNode;
  table: ReactNode;
  height: number;
}) {
  return (
    <>
      <figure className="chart" role="img" aria-label={label} style={{ height, margin: 0 }}>
        <Suspense
          fallback={
            <div className="chart-placeholder" style={{ height }}>
              Drawing the chart…
            </div>
          }
        >
          {children}
        </Suspense>
      </figure>
      <details className="data-table">
        <summary>Show the figures</summary>
        <TableWrap label="The figures">{table}</TableWrap>
      </details>
    </>
  );
}

export function DailyFigure({
  days,
  label,
  height = 260,
}: {
  days: DailyPoint[];
  label: string;
  height?: number;
}) {
  const calls = days.reduce((sum, day) => sum + day.calls, 0);
  const credits = days.reduce((sum, day) => sum + day.credits, 0);
  return (
    <Figure
      height={height}
      label={`${label}: ${formatNumber(calls)} calls and ${formatNumber(credits)} credits over ${days.length} days.`}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" className="num">
                Calls
              </th>
              <th scope="col" className="num">
                Credits
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <td>{day.date}</td>
                <td className="num">{formatNumber(day.calls)}</td>
                <td className="num">{formatNumber(day.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <DailyChart days={days} height={height} />
    </Figure>
  );
}

export function ToolFigure({
  days,
  label,
  height = 260,
}: {
  days: ToolDay[];
  label: string;
  height?: number;
}) {
  const tools = [...new Set(days.flatMap((day) => Object.keys(day.by_tool)))].sort();
  const total = (tool: string) =>
    days.reduce((sum, day) => sum + (day.by_tool[tool]?.calls ?? 0), 0);
  const summary = tools.length
    ? tools.map((tool) => `${tool} ${formatNumber(total(tool))}`).join(', ')
    : 'no calls';
  return (
    <Figure
      height={height}
      label={`${label}, calls by tool over ${days.length} days: ${summary}.`}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {tools.map((tool) => (
                <th scope="col" className="num" key={tool}>
                  {tool}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days
              .filter((day) => Object.keys(day.by_tool).length)
              .map((day) => (
                <tr key={day.date}>
                  <td>{day.date}</td>
                  {tools.map((tool) => (
                    <td className="num" key={tool}>
                      {formatNumber(day.by_tool[tool]?.calls ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
          </tbody>
        </table>
      }
    >
      <ToolStackChart days={days} tools={tools} height={height} />
    </Figure>
  );
}
