/** What every chart of the app shares: the responsive plot box, and titled, rounded axes (colours: palette.ts). */
import { CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { sig3 } from './format';

/** Fills its parent box; recharts' `responsive` follows the box as the window or the layout changes. */
export const PLOT = {
  responsive: true,
  style: { width: '100%', height: '100%' },
  margin: { top: 8, right: 16, bottom: 4, left: 4 },
} as const;

const AXIS_TICK = { fill: '#222222' };

/** Grid, both axes titled (with units), ticks and tooltips at three significant figures. */
export function chartAxes(
  x: { key: string; title: string },
  y: { title: string; domain?: [number, number]; integer?: boolean },
) {
  return [
    <CartesianGrid key="grid" strokeDasharray="3 3" />,
    <XAxis
      key="x"
      dataKey={x.key}
      tick={AXIS_TICK}
      tickFormatter={sig3}
      height={46}
      label={{ value: x.title, position: 'insideBottom', offset: 2, fill: '#111111' }}
    />,
    <YAxis
      key="y"
      tick={AXIS_TICK}
      tickFormatter={sig3}
      width={72}
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
