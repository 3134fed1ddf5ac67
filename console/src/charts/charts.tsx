// Loaded on first use (components/charts.tsx): the charting library stays out of the first load.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

export const PALETTE = [
  '#4f46e5',
  '#0d9488',
  '#d97706',
  '#db2777',
  '#0284c7',
  '#7c3aed',
  '#65a30d',
  '#64748b',
];

const AXIS = { fontSize: 11, fill: '#566070' };
const numbers = new Intl.NumberFormat('en', { notation: 'compact' });

/** `2026-11-22` as `Nov 22`. */
function shortDate(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString('en', {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
}

/** A tooltip's title: the day of the bar. */
function dateLabel(date: unknown): string {
  return typeof date === 'string' ? shortDate(date) : '';
}

export interface DailyPoint {
  date: string;
  calls: number;
  credits: number;
}

/** Calls and credits a day, oldest left. */
export function DailyChart({ days, height = 260 }: { days: DailyPoint[]; height?: number }) {
  const data = [...days].reverse();
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -12 }} barGap={2}>
        <CartesianGrid stroke="#eceef2" vertical={false} />
        <XAxis
          dataKey="date"
          tickFormatter={shortDate}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: '#d8dce3' }}
          minTickGap={18}
        />
        <YAxis
          tick={AXIS}
          tickLine={false}
          axisLine={false}
          allowDecimals={false}
          tickFormatter={(value: number) => numbers.format(value)}
        />
        <Tooltip labelFormatter={dateLabel} cursor={{ fill: '#f1f2f6' }} />
        <Legend iconType="square" iconSize={10} wrapperStyle={{ fontSize: 12 }} />
        <Bar
          dataKey="calls"
          name="Calls"
          fill={PALETTE[0]}
          radius={[3, 3, 0, 0]}
          maxBarSize={22}
          isAnimationActive={false}
        />
        <Bar
          dataKey="credits"
          name="Credits"
          fill={PALETTE[1]}
          radius={[3, 3, 0, 0]}
          maxBarSize={22}
          isAnimationActive={false}
        />
      </BarChart>
    </ResponsiveContainer>
  );
}

export interface ToolDay {
  date: string;
  by_tool: Record<string, { calls: number; credits: number; failed: number }>;
}

/** Calls a day, stacked by tool, oldest left. */
export function ToolStackChart({
  days,
  tools,
  height = 260,
}: {
  days: ToolDay[];
  tools: string[];
  height?: number;
}) {
  const data = [...days].reverse().map((day) => ({
    date: day.date,
    ...Object.fromEntries(tools.map((tool) => [tool, day.by_tool[tool]?.calls ?? 0])),
  }));
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -12 }}>
        <CartesianGrid stroke="#eceef2" vertical={false} />
        <XAxis
          dataKey="date"
          tickFormatter={shortDate}
          tick={AXIS}
          tickLine={false}
          axisLine={{ stroke: '#d8dce3' }}
          minTickGap={18}
        />
        <YAxis
          tick={AXIS}
          tickLine={false}
          axisLine={false}
          allowDecimals={false}
          tickFormatter={(value: number) => numbers.format(value)}
        />
        <Tooltip labelFormatter={dateLabel} cursor={{ fill: '#f1f2f6' }} />
        <Legend iconType="square" iconSize={10} wrapperStyle={{ fontSize: 12 }} />
        {tools.map((tool, i) => (
          <Bar
            key={tool}
            dataKey={tool}
            name={tool}
            stackId="calls"
            fill={PALETTE[i % PALETTE.length]}
            maxBarSize={18}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
