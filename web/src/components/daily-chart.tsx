import type { UsageDay } from "../lib/api";
import { tokens, usd } from "../lib/format";
import { labelledDays, monthRuns, niceMax, shortDay } from "../lib/usage-chart";
import { CounterCells, CounterHeads } from "./counter-cells";

const WIDTH = 760;
const LEFT = 70;
const RIGHT = 16;
const BARS_HEIGHT = 150;
const LINE_HEIGHT = 120;
const GAP = 34;
const AXIS = 22;

/**
 * Cost per UTC day as columns in plain SVG and, for the organisation, a second panel on
 * the same days: the month-to-date spend, which is what the monthly limit is held
 * against, with the limit as a dashed line. A daily bar never meets a monthly limit,
 * so the limit is drawn against the running total rather than the bars. The figures
 * are also in a table under the chart for screen readers and for reading exact values.
 */
export function DailyChart(props: { title: string; days: UsageDay[]; monthToDate: boolean; limit: number | null }) {
  const { days } = props;
  const span = WIDTH - LEFT - RIGHT;
  const slot = span / Math.max(days.length, 1);
  const costs = days.map((d) => Number(d.cost_usd));
  const barTop = niceMax(Math.max(0, ...costs));
  const lineTop = props.monthToDate ? niceMax(Math.max(props.limit ?? 0, ...days.map((d) => Number(d.month_to_date_cost_usd))) * 1.1) : 1;
  const lineY0 = BARS_HEIGHT + GAP;
  const height = (props.monthToDate ? lineY0 + LINE_HEIGHT : BARS_HEIGHT) + AXIS;
  const x = (i: number) => LEFT + i * slot + slot / 2;
  const barY = (v: number) => BARS_HEIGHT - (v / barTop) * (BARS_HEIGHT - 8);
  const lineY = (v: number) => lineY0 + LINE_HEIGHT - (v / lineTop) * LINE_HEIGHT;
  const total = usd(costs.reduce((a, b) => a + b, 0));
  const range = days.length ? `${days[0]!.date} to ${days.at(-1)!.date}` : "no days";
  const description =
    `Cost per UTC day from ${range}, ${total} in all, highest day ${usd(Math.max(0, ...costs))}.` +
    (props.monthToDate
      ? ` Month-to-date spend${props.limit === null ? "; no monthly limit is set." : ` against the monthly limit of ${usd(props.limit)}.`}`
      : "");
  const labels = labelledDays(days.length, 8);
  // One day of a month (the 1st, or a range's edge) is a level mark across its slot: a
  // polyline of one point draws nothing.
  const linePoints = (run: number[]) => {
    const points = run.map((i) => ({ x: x(i), y: lineY(Number(days[i]!.month_to_date_cost_usd)) }));
    const drawn =
      points.length === 1
        ? [
            { ...points[0]!, x: points[0]!.x - Math.min(slot * 0.35, 10) },
            { ...points[0]!, x: points[0]!.x + Math.min(slot * 0.35, 10) },
          ]
        : points;
    return drawn.map((p) => `${p.x},${p.y}`).join(" ");
  };
  return (
    <figure class="chart daily-chart" data-testid="daily-chart">
      <figcaption>{props.title}</figcaption>
      <svg
        width="100%"
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-labelledby="daily-chart-title"
        aria-describedby="daily-chart-desc"
        style={{ maxWidth: `${WIDTH}px` }}
      >
        <title id="daily-chart-title">{props.title}</title>
        <desc id="daily-chart-desc">{description}</desc>
        <text x={LEFT - 6} y={12} text-anchor="end" class="chart-axis">
          {usd(barTop)}
        </text>
        <text x={LEFT - 6} y={BARS_HEIGHT} text-anchor="end" class="chart-axis">
          $0
        </text>
        <text x={LEFT + 4} y={10} class="chart-axis">
          Cost per day
        </text>
        <line x1={LEFT} x2={WIDTH - RIGHT} y1={BARS_HEIGHT} y2={BARS_HEIGHT} class="chart-baseline" />
        {days.map((d, i) => {
          const top = barY(costs[i]!);
          const w = Math.max(slot * 0.7, 1);
          return (
            <rect
              key={d.date}
              x={x(i) - w / 2}
              y={top}
              width={w}
              height={Math.max(BARS_HEIGHT - top, costs[i]! > 0 ? 1 : 0)}
              class="chart-bar"
              data-date={d.date}
              data-cost={d.cost_usd}
            >
              <title>{`${d.date}: ${usd(d.cost_usd)}, ${tokens(d.calls)} calls`}</title>
            </rect>
          );
        })}
        {props.monthToDate && (
          <g class="month-to-date">
            <text x={LEFT - 6} y={lineY0 + 10} text-anchor="end" class="chart-axis">
              {usd(lineTop)}
            </text>
            <text x={LEFT - 6} y={lineY0 + LINE_HEIGHT} text-anchor="end" class="chart-axis">
              $0
            </text>
            <text x={LEFT + 4} y={lineY0 - 6} class="chart-axis">
              Month-to-date spend (from the 1st of each month, UTC)
            </text>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={lineY0 + LINE_HEIGHT} y2={lineY0 + LINE_HEIGHT} class="chart-baseline" />
            {monthRuns(days.map((d) => d.date)).map((run) => (
              <polyline key={run[0]} class="chart-line" points={linePoints(run)} />
            ))}
            {props.limit !== null && (
              <g data-testid="spend-limit-line" data-limit={props.limit}>
                <line x1={LEFT} x2={WIDTH - RIGHT} y1={lineY(props.limit)} y2={lineY(props.limit)} class="chart-limit" />
                <text x={WIDTH - RIGHT} y={lineY(props.limit) - 4} text-anchor="end" class="chart-limit-label">
                  Monthly limit {usd(props.limit)}
                </text>
              </g>
            )}
          </g>
        )}
        {labels.map((i) => (
          <text key={i} x={x(i)} y={height - 6} text-anchor="middle" class="chart-axis">
            {shortDay(days[i]!.date)}
          </text>
        ))}
      </svg>
      <details class="chart-figures">
        <summary>Figures per day</summary>
        <table class="list" data-testid="daily-usage">
          <caption>Usage per UTC day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <CounterHeads />
              {props.monthToDate && (
                <th scope="col" class="num">
                  Month to date
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date} data-date={d.date}>
                <th scope="row">{d.date}</th>
                <CounterCells counters={d} />
                {props.monthToDate && <td class="num">{usd(d.month_to_date_cost_usd)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
