/** What every chart of the app shares: the responsive plot box, and titled, rounded axes (colours: palette.ts). */
import { CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { sig3 } from './format';

/** Fills its parent box; recharts' `responsive` follows the box as the window or the layout changes. */
export const PLOT = {
  responsive: true,
  style: { width: '100%', height: '100%' },
  // 16 above the plot: the top tick's label is centred on its top edge, and half of it must fit in the SVG.
  margin: { top: 16, right: 16, bottom: 4, left: 4 },
} as const;

const AXIS_TICK = { fill: '#222222' };

/**
 * Where to tick an axis of `count` verification steps: every step of a short run (1, 2 … 12), else round
 * numbers from 0, three to seven of them (0, 200 … 1,000), not every nth step a category axis labels (26, 95, 178 …).
 */
export function stepTicks(count: number): number[] {
  if (count <= 12) return Array.from({ length: count }, (_, i) => i + 1);
  const magnitude = 10 ** Math.floor(Math.log10(count / 5));
  const size = [1, 2, 2.5, 5, 10]
    .map((factor) => factor * magnitude)
    .find((each) => Number.isInteger(each) && count / each <= 6) as number;
  return Array.from({ length: Math.floor(count / size) + 1 }, (_, i) => i * size);
}

/**
 * Grid, both axes titled (with units), ticks and tooltips at three significant figures. `x.ticks`: the x values
 * are numbers, spaced as such and ticked there (stepTicks).
 */
export function chartAxes(
  x: { key: string; title: string; ticks?: number[] },
  y: { title: string; domain?: [number, number]; integer?: boolean },
) {
  return [
    <CartesianGrid key="grid" strokeDasharray="3 3" />,
    <XAxis
      key="x"
      dataKey={x.key}
      {...(x.ticks ? { type: 'number' as const, ticks: x.ticks, domain: [x.ticks[0] ?? 0, 'dataMax'] } : {})}
      tick={AXIS_TICK}
      tickFormatter={sig3}
      height={46}
      label={{ value: x.title, position: 'insideBottom', offset: 2, fill: '#111111' }}
    />,
    <YAxis
      key="y"
      tick={AXIS_TICK}
      tickFormatter={sig3}
      // Measured from the drawn ticks and title: a long run's "11,000" draft tokens need more room than "0.8".
      width="auto"
      // Every tick labelled: recharts' default drops the one below the top (0, 0.25, 0.5, 1) where the labels
      // are tall beside their spacing, and the axis then reads as uneven; the SVG text check holds them apart.
      interval={0}
      allowDecimals={!y.integer}
      {...(y.domain ? { domain: y.domain } : {})}
      label={{
        value: y.title,
        angle: -90,
        position: 'insideLeft',
        offset: 8,
        style: { textAnchor: 'middle' },
        fill: '#111111',
      }}
    />,
    <Tooltip
      key="tooltip"
      formatter={(value) => sig3(Number(value))}
      labelFormatter={(label) => `${x.title}: ${sig3(Number(label))}`}
    />,
  ];
}
