export interface Bar {
  label: string;
  value: number;
  /** Shown at the bar's end, e.g. "$0.0123". */
  text: string;
}

/**
 * A horizontal bar chart in plain SVG, with the figures also in a table for screen
 * readers (the SVG itself is labelled and hidden from them).
 */
export function BarChart(props: { title: string; bars: Bar[]; width?: number }) {
  const width = props.width ?? 640;
  const labelWidth = 180;
  const textWidth = 90;
  const barHeight = 22;
  const gap = 8;
  const max = Math.max(...props.bars.map((b) => b.value), 0);
  const height = Math.max(props.bars.length, 1) * (barHeight + gap) + gap;
  const span = width - labelWidth - textWidth;
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.title}>
        {props.bars.length === 0 && (
          <text x={8} y={barHeight}>
            Nothing to show yet
          </text>
        )}
        {props.bars.map((bar, i) => {
          const y = gap + i * (barHeight + gap);
          const w = max > 0 ? Math.max((bar.value / max) * span, bar.value > 0 ? 2 : 0) : 0;
          return (
            <g key={i}>
              <text x={labelWidth - 8} y={y + barHeight * 0.7} text-anchor="end" class="chart-label">
                {bar.label.length > 24 ? `${bar.label.slice(0, 23)}…` : bar.label}
              </text>
              <rect x={labelWidth} y={y} width={w} height={barHeight} rx={3} class="chart-bar" />
              <text x={labelWidth + w + 6} y={y + barHeight * 0.7} class="chart-value">
                {bar.text}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Spend this month against the limit: a meter, red past 90 %. */
export function SpendMeter(props: { spent: number; limit: number | null }) {
  if (props.limit === null) return <p>No monthly spend limit is set.</p>;
  const ratio = props.limit > 0 ? Math.min(props.spent / props.limit, 1) : 1;
  return (
    <div class="meter-wrap">
      <svg
        width="100%"
        height="18"
        role="img"
        aria-label={`${Math.round(ratio * 100)} % of the monthly limit used`}
        preserveAspectRatio="none"
        viewBox="0 0 100 18"
      >
        <rect x="0" y="0" width="100" height="18" rx="3" class="meter-track" />
        <rect x="0" y="0" width={ratio * 100} height="18" rx="3" class={ratio >= 0.9 ? "meter-fill meter-high" : "meter-fill"} />
      </svg>
      <p>{Math.round(ratio * 1000) / 10} % of the limit used</p>
    </div>
  );
}
