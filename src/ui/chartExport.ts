/**
 * Exports for slides: one chart as a self-contained SVG (its title, axes and legend drawn in SVG, so that it
 * opens the same in any editor), that SVG as a PNG at twice its size, and the whole dashboard as one
 * 1920 × 1080 PNG. Text goes in through DOM text nodes only, never as markup.
 */
import { toBlob } from 'html-to-image';

const SVG_NS = 'http://www.w3.org/2000/svg';
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const PAD = 12;
const TITLE_SIZE = 16;
const LEGEND_SIZE = 13;

export interface LegendEntry {
  name: string;
  color: string;
  /** A bar is drawn as a filled square, a line as a stroke, `dashed` as a dashed one (a ratio over proposed drafts alone). */
  kind: 'bar' | 'line' | 'dashed';
}

export interface ChartSvg {
  text: string;
  width: number;
  height: number;
}

function svgElement<K extends keyof SVGElementTagNameMap>(
  name: K,
  attributes: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** Greedy word wrap by an average glyph width: the SVG has no layout engine, and titles must not run off. */
function wrapWords(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The plotted surface of a recharts chart inside `frame` (legend icons are small SVGs of the same class). */
export function chartSurface(frame: Element): SVGSVGElement {
  const surfaces = [...frame.querySelectorAll<SVGSVGElement>('svg.recharts-surface')];
  const largest = surfaces.sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
  if (!largest) throw new Error('the chart has not drawn yet');
  return largest;
}

/** The chart as it stands on screen, with its title above and its legend below, on a white ground. */
export function composeChartSvg(frame: Element, title: string, legend: readonly LegendEntry[]): ChartSvg {
  const surface = chartSurface(frame);
  const { width: plotWidth, height: plotHeight } = surface.getBoundingClientRect();
  const width = Math.round(plotWidth);
  const titleLines = wrapWords(title, Math.max(20, Math.floor((width - 2 * PAD) / (TITLE_SIZE * 0.6))));
  const titleHeight = PAD + titleLines.length * TITLE_SIZE * 1.3;
  const legendTop = titleHeight + plotHeight + 4;
  const placed: { entry: LegendEntry; x: number; row: number }[] = [];
  let x = PAD;
  let row = 0;
  for (const entry of legend) {
    const itemWidth = 22 + entry.name.length * LEGEND_SIZE * 0.58 + 16;
    if (x + itemWidth > width - PAD && x > PAD) {
      row += 1;
      x = PAD;
    }
    placed.push({ entry, x, row });
    x += itemWidth;
  }
  const legendHeight = legend.length > 0 ? (row + 1) * LEGEND_SIZE * 1.6 : 0;
  const height = Math.round(legendTop + legendHeight + PAD);

  const root = svgElement('svg', {
    xmlns: SVG_NS,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    'font-family': FONT,
    'font-size': getComputedStyle(surface).fontSize,
  });
  root.append(svgElement('rect', { width, height, fill: '#ffffff' }));
  const heading = svgElement('text', { x: PAD, y: PAD, 'font-size': TITLE_SIZE, 'font-weight': 600, fill: '#111111' });
  titleLines.forEach((line, i) =>
    heading.append(svgElement('tspan', { x: PAD, dy: i === 0 ? TITLE_SIZE : TITLE_SIZE * 1.3 }, line)),
  );
  root.append(svgElement('title', {}, title), heading);

  const plot = surface.cloneNode(true) as SVGSVGElement;
  for (const attribute of ['class', 'style', 'tabindex', 'role']) plot.removeAttribute(attribute);
  plot.setAttribute('x', '0');
  plot.setAttribute('y', String(titleHeight));
  plot.setAttribute('width', String(plotWidth));
  plot.setAttribute('height', String(plotHeight));
  plot.setAttribute('overflow', 'visible');
  root.append(plot);

  for (const { entry, x: left, row: line } of placed) {
    const middle = legendTop + line * LEGEND_SIZE * 1.6 + LEGEND_SIZE * 0.8;
    root.append(
      entry.kind === 'bar'
        ? svgElement('rect', { x: left, y: middle - 6, width: 14, height: 12, fill: entry.color })
        : svgElement('line', {
            x1: left,
            x2: left + 16,
            y1: middle,
            y2: middle,
            stroke: entry.color,
            'stroke-width': 3,
            ...(entry.kind === 'dashed' ? { 'stroke-dasharray': '6 4' } : {}),
          }),
      svgElement(
        'text',
        { x: left + 22, y: middle + LEGEND_SIZE * 0.35, 'font-size': LEGEND_SIZE, fill: '#111111' },
        entry.name,
      ),
    );
  }
  return { text: new XMLSerializer().serializeToString(root), width, height };
}

function canvasBlob(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png'),
  );
}

/** Rasterises an exported chart at `scale` × its size: 2× stays sharp on a slide. */
export async function chartSvgToPng(chart: ChartSvg, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([chart.text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(chart.width * scale);
    canvas.height = Math.round(chart.height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2D canvas to draw the PNG on');
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await canvasBlob(canvas);
  } finally {
    URL.revokeObjectURL(url);
  }
}

export const SNAPSHOT_WIDTH = 1920;
export const SNAPSHOT_HEIGHT = 1080;

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/**
 * The dashboard laid out at 1920 × 1080 in presentation style (the `snapshot` class gives it that size and
 * layout, the `presentation` class on the root its type), given frames for the responsive charts to redraw
 * at that size, then captured. The page returns to its own layout afterwards.
 */
export async function snapshotDashboard(dashboard: HTMLElement): Promise<Blob> {
  const root = document.documentElement;
  const wasPresenting = root.classList.contains('presentation');
  root.classList.add('presentation');
  dashboard.classList.add('snapshot');
  try {
    await nextFrame();
    await nextFrame();
    await nextFrame();
    const blob = await toBlob(dashboard, {
      width: SNAPSHOT_WIDTH,
      height: SNAPSHOT_HEIGHT,
      canvasWidth: SNAPSHOT_WIDTH,
      canvasHeight: SNAPSHOT_HEIGHT,
      pixelRatio: 1,
      backgroundColor: '#000000',
      skipFonts: true,
      style: { position: 'static', left: '0', top: '0' },
      filter: (node) => !(node instanceof HTMLElement && node.dataset.snapshot === 'omit'),
    });
    if (!blob) throw new Error('the snapshot could not be encoded as PNG');
    return blob;
  } finally {
    dashboard.classList.remove('snapshot');
    if (!wasPresenting) root.classList.remove('presentation');
  }
}
