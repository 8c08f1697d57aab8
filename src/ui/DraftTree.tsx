import { stratify, tree } from 'd3-hierarchy';
import { useMemo, type CSSProperties } from 'react';
import type { TreeNode } from '../core/explain';
import type { PlaybackView } from './playback';
import { SOURCE_MARKS } from './howItWorksText';
import { isBranchingNode } from '../contract/sceneClaims';

const NODE_WIDTH = 104;
const NODE_HEIGHT = 30;
const COLUMN = NODE_WIDTH + 36;
const ROW = NODE_HEIGHT + 12;
const MARGIN = 8;
const MAX_LABEL = 10;

const STATUS_TEXT: Readonly<Record<TreeNode['status'], string>> = {
  root: 'context',
  final: 'final token',
  accepted: 'accepted',
  rejected: 'rejected',
  'not-kept': 'not kept: the block stopped before it',
  'not-examined': 'not examined',
  invalid: 'struck out by the schema (the first disallowed token, or after one)',
};

function label(text: string, max = MAX_LABEL): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
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
}) {
  const { nodes, text, finalOrigin, view, decided } = props;
  const layout = useMemo(() => {
    const root = stratify<TreeNode>()
      .id((node) => `p:${node.id}`)
      .parentId((node) => (node.parent === null ? null : `p:${node.parent}`))([...nodes]);
    tree<TreeNode>().nodeSize([ROW, COLUMN])(root);
    const placed = root.descendants();
    const xs = placed.map((node) => node.x ?? 0);
    const top = Math.min(...xs);
    const height = Math.max(...xs) - top + NODE_HEIGHT + 2 * MARGIN;
    const width = Math.max(...placed.map((node) => node.depth)) * COLUMN + NODE_WIDTH + 2 * MARGIN;
    const at = (node: (typeof placed)[number]) => ({
      x: MARGIN + node.depth * COLUMN,
      y: MARGIN + (node.x ?? 0) - top,
    });
    return { placed, links: root.links(), width, height, at };
  }, [nodes]);
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
    <figure className="draft-tree" data-testid="draft-tree">
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
          const x1 = from.x + NODE_WIDTH;
          const y1 = from.y + NODE_HEIGHT / 2;
          const y2 = to.y + NODE_HEIGHT / 2;
          return (
            <path
              key={`${link.source.data.id}->${link.target.data.id}`}
              className={`tree-link${emitted ? ' emitted' : ''}`}
              d={`M${x1},${y1} C${x1 + 18},${y1} ${to.x - 18},${y2} ${to.x},${y2}`}
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
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={data.status === 'final' ? 14 : 5} />
              <text x={NODE_WIDTH / 2} y={NODE_HEIGHT / 2} dominantBaseline="central" textAnchor="middle">
                {data.status === 'root'
                  ? 'context'
                  : mark
                    ? `${mark.symbol} ${label(tokenText, MAX_LABEL - 2)}`
                    : label(tokenText)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
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
