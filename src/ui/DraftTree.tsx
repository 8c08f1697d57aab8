import { stratify, tree } from 'd3-hierarchy';
import { useLayoutEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { TreeNode } from '../core/explain';
import type { PlaybackView } from './playback';
import { SOURCE_MARKS } from './howItWorksText';
import { isBranchingNode } from '../contract/sceneClaims';

/**
 * Two layouts: across (depth left to right, the inspector's), and down (depth top to bottom, with larger
 * type, for the replay: K drafts make the tree far wider than deep across, and a projector needs its labels at
 * 18 px or more with the grid beside it). A node holds its longest label (`maxLabel` characters of monospace) at
 * the 18 px of presentation mode and embeds.
 */
const GEOMETRY = {
  across: { nodeWidth: 120, nodeHeight: 30, depthGap: 20, breadthGap: 12, maxLabel: 10 },
  down: { nodeWidth: 132, nodeHeight: 36, depthGap: 26, breadthGap: 12, maxLabel: 9 },
} as const;
export type TreeLayout = keyof typeof GEOMETRY;
const MARGIN = 8;
const STATUS_TEXT: Readonly<Record<TreeNode['status'], string>> = {
  root: 'context',
  final: 'final token',
  accepted: 'accepted',
  rejected: 'rejected',
  'not-kept': 'not kept: the block stopped before it',
  'not-examined': 'not examined',
  invalid: 'struck out by the schema (the first disallowed token, or after one)',
};

function label(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The tidy tree's node positions and natural size, growing `direction`. */
function treeLayout(nodes: readonly TreeNode[], direction: TreeLayout) {
  const geometry = GEOMETRY[direction];
  const root = stratify<TreeNode>()
    .id((node) => `p:${node.id}`)
    .parentId((node) => (node.parent === null ? null : `p:${node.parent}`))([...nodes]);
  const down = direction === 'down';
  // d3's x is the breadth; the depth's step and the breadth's step depend on which way the tree grows.
  const breadthStep = (down ? geometry.nodeWidth : geometry.nodeHeight) + geometry.breadthGap;
  const depthStep = (down ? geometry.nodeHeight : geometry.nodeWidth) + geometry.depthGap;
  // Down, cousins sit as close as siblings: the breadth is what limits the labels' size on a projector.
  tree<TreeNode>()
    .nodeSize([breadthStep, depthStep])
    .separation((a, b) => (down || a.parent === b.parent ? 1 : 2))(root);
  const placed = root.descendants();
  const xs = placed.map((node) => node.x ?? 0);
  const first = Math.min(...xs);
  const breadth = Math.max(...xs) - first + breadthStep - geometry.breadthGap + 2 * MARGIN;
  const depth = Math.max(...placed.map((node) => node.depth)) * depthStep + depthStep - geometry.depthGap + 2 * MARGIN;
  const at = (node: (typeof placed)[number]) => {
    const along = MARGIN + node.depth * depthStep;
    const across = MARGIN + (node.x ?? 0) - first;
    return down ? { x: across, y: along } : { x: along, y: across };
  };
  return {
    placed,
    links: root.links(),
    width: down ? breadth : depth,
    height: down ? depth : breadth,
    at,
  };
}

/**
 * The K drafts merged into a prefix tree, laid out by d3-hierarchy's tidy tree: one node per distinct
 * prefix, coloured by outcome, the emitted path drawn thick, and the correction or bonus token as its leaf.
 */
export function DraftTree(props: {
  nodes: readonly TreeNode[];
  text: (token: number) => string;
  finalOrigin: 'correction' | 'bonus' | null;
  view: PlaybackView | null;
  /** During a replay's verification: whether the decisions revealed so far settle this node. */
  decided?: (node: TreeNode) => boolean;
  direction?: TreeLayout;
  /**
   * The tree fills a frame of its own (an embed): where the across layout is wider than the frame and the down
   * layout fits it whole, the tree turns down, so that a slide shows every node at 18 px instead of cutting some.
   */
  fitFrame?: boolean;
}) {
  const { nodes, text, finalOrigin, view, decided, fitFrame = false } = props;
  const figure = useRef<HTMLElement>(null);
  const caption = useRef<HTMLElement>(null);
  const [turned, setTurned] = useState(false);
  const asked = props.direction ?? 'across';
  const direction: TreeLayout = asked === 'across' && turned ? 'down' : asked;
  const layout = useMemo(() => treeLayout(nodes, direction), [nodes, direction]);
  const { nodeWidth, nodeHeight, maxLabel } = GEOMETRY[direction];
  useLayoutEffect(() => {
    const box = figure.current;
    if (!fitFrame || asked !== 'across' || !box) return;
    // Both layouts' sizes, laid out once for these nodes: only a tree that fits itself to a frame needs the other.
    const across = treeLayout(nodes, 'across');
    const down = treeLayout(nodes, 'down');
    const decide = () => {
      const style = getComputedStyle(box);
      const width = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const height =
        box.clientHeight -
        parseFloat(style.paddingTop) -
        parseFloat(style.paddingBottom) -
        (caption.current?.getBoundingClientRect().height ?? 0);
      setTurned(across.width > width && down.width <= width && down.height <= height);
    };
    // The frame's box, not the window's: the embed's stylesheet makes the figure fill it once the page marks it.
    const watch = new ResizeObserver(decide);
    watch.observe(box);
    return () => watch.disconnect();
  }, [fitFrame, asked, nodes]);
  const prefixes = nodes.filter((node) => node.status !== 'root' && node.status !== 'final').length;
  const drafts = nodes.find((node) => node.status === 'root')?.drafts.length ?? 0;
  const emittedCount = nodes.filter((node) => node.emitted && node.status !== 'root').length;
  const showOutcome = !view || view.phase === 'emission' || view.phase === 'verification';
  const showFinal = !view || view.phase === 'emission';
  const forced = nodes.filter((node) => node.source === 'grammar').length;
  const lookedUp = nodes.filter((node) => node.source === 'lookup').length;
  const copied = nodes.filter((node) => node.source === 'copy').length;
  const fromHead = nodes.filter((node) => node.source === 'head').length;
  const marks = [
    forced > 0 ? `${forced} forced by the schema (${SOURCE_MARKS.grammar.symbol})` : '',
    copied > 0 ? `${copied} copied from the prompt (${SOURCE_MARKS.copy.symbol})` : '',
    lookedUp > 0 ? `${lookedUp} looked up (${SOURCE_MARKS.lookup.symbol})` : '',
    fromHead > 0 ? `${fromHead} from the draft head (${SOURCE_MARKS.head.symbol})` : '',
  ].filter(Boolean);
  const currentId = view?.cell
    ? nodes.find(
        (node) =>
          node.status !== 'root' &&
          node.drafts.includes(view.cell?.draft ?? -1) &&
          node.depth === (view.cell?.position ?? -2) + 1,
      )?.id
    : undefined;
  return (
    <figure ref={figure} className={`draft-tree tree-${direction}`} data-testid="draft-tree">
      <svg
        role="img"
        aria-label={`draft tree: ${drafts} draft${drafts === 1 ? '' : 's'} merged into ${prefixes} distinct prefixes; the emitted path has ${emittedCount} token${emittedCount === 1 ? '' : 's'}${marks.length > 0 ? `; of the prefixes, ${marks.join(' and ')}` : ''}`}
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        height={layout.height}
        // Presentation mode may enlarge the tree up to 1.5× its natural size (teaching.css).
        style={{ '--natural-width': `${layout.width}px` } as CSSProperties}
        data-prefixes={prefixes}
      >
        {layout.links.map((link) => {
          const from = layout.at(link.source);
          const to = layout.at(link.target);
          if (link.target.data.status === 'final' && !showFinal) return null;
          const emitted = link.target.data.emitted && showFinal;
          const path =
            direction === 'down'
              ? `M${from.x + nodeWidth / 2},${from.y + nodeHeight} C${from.x + nodeWidth / 2},${from.y + nodeHeight + 14} ${to.x + nodeWidth / 2},${to.y - 14} ${to.x + nodeWidth / 2},${to.y}`
              : `M${from.x + nodeWidth},${from.y + nodeHeight / 2} C${from.x + nodeWidth + 18},${from.y + nodeHeight / 2} ${to.x - 18},${to.y + nodeHeight / 2} ${to.x},${to.y + nodeHeight / 2}`;
          return (
            <path
              key={`${link.source.data.id}->${link.target.data.id}`}
              className={`tree-link${emitted ? ' emitted' : ''}`}
              d={path}
            />
          );
        })}
        {layout.placed.map((node) => {
          const data = node.data;
          if (data.status === 'final' && !showFinal) return null;
          const { x, y } = layout.at(node);
          // The grammar's verdict is known from the grammar phase on: struck-out tokens show struck, as its caption says.
          const struck = data.status === 'invalid' && view?.phase !== 'drafting';
          const known = showFinal || (showOutcome && (decided?.(data) ?? true));
          const status = data.status === 'root' || data.status === 'final' || known || struck ? data.status : 'pending';
          const kind = data.status === 'root' ? 'root' : data.status === 'final' ? 'final' : 'prefix';
          const tokenText = data.token === null ? 'context' : text(data.token);
          const mark = data.source === null || data.source === 'model' ? null : SOURCE_MARKS[data.source];
          const title = `${tokenText}: ${data.status === 'final' ? `${finalOrigin ?? 'final'} token` : STATUS_TEXT[data.status]}${data.status !== 'root' ? ` · draft${data.drafts.length > 1 ? 's' : ''} ${data.drafts.map((k) => k + 1).join(', ')}` : ''}${mark ? ` · ${mark.label}` : ''}`;
          return (
            <g
              key={data.id}
              transform={`translate(${x},${y})`}
              className={`tree-node status-${status}${data.emitted && showFinal ? ' emitted' : ''}${data.status === 'final' ? ` final-${finalOrigin ?? 'correction'}` : ''}${data.id === currentId ? ' current' : ''}`}
              data-node={kind}
              data-status={data.status}
              data-source={data.source ?? undefined}
              data-branching={isBranchingNode(data, nodes) ? true : undefined}
            >
              <title>{title}</title>
              <rect width={nodeWidth} height={nodeHeight} rx={data.status === 'final' ? 14 : 5} />
              <text x={nodeWidth / 2} y={nodeHeight / 2} dominantBaseline="central" textAnchor="middle">
                {data.status === 'root'
                  ? 'context'
                  : mark
                    ? `${mark.symbol} ${label(tokenText, maxLabel - 2)}`
                    : label(tokenText, maxLabel)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption ref={caption}>
        <ul className="legend tree-legend" aria-label="Draft tree colours">
          <li className="swatch status-accepted">accepted</li>
          <li className="swatch status-rejected">rejected</li>
          <li className="swatch status-not-kept">not kept (block stopped before)</li>
          <li className="swatch status-not-examined">not examined</li>
          <li className="swatch status-invalid">struck out by the schema</li>
          <li className="swatch final-correction">correction</li>
          <li className="swatch final-bonus">bonus</li>
          <li className="swatch emitted-path">emitted path (thick)</li>
        </ul>
        {marks.length > 0 && (
          <ul
            className="legend tree-legend"
            aria-label="Draft tree marks: where a token came from"
            data-testid="source-legend"
          >
            {(['grammar', 'copy', 'lookup', 'head'] as const).map((source) => (
              <li key={source} className="source-mark-entry">
                <span aria-hidden="true">{SOURCE_MARKS[source].symbol}</span> {SOURCE_MARKS[source].label}
              </li>
            ))}
            {fromHead === 0 && <li className="source-mark-entry">no mark: sampled from the draft model</li>}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
