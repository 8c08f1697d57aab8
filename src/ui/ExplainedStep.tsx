import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { draftTree, explainStep } from '../core/explain';
import type { StepRecord } from '../contract/stepRecord';
import { BlockTrace, DecisionGrid, DecisionList } from './DecisionLines';
import { DraftTree } from './DraftTree';
import { embedsView } from './embed';
import { HelpButton } from './HowItWorks';
import { ALL_FORCED, allForced, playbackFrames, viewAt } from './playback';
import { StepPlayer } from './StepPlayer';
import { download } from './download';
import { useSpec } from './storeContext';
import { canEncodeVideo, exportReplay, REPLAY_HEIGHT, REPLAY_WIDTH, type ReplayFormat } from './replayExport';

/**
 * One speculative step, explained: the player, the draft tree, the grid of decisions, and their order.
 * `outcome` (the final token, its law, α*) shows only when no replay is under way or the replay has reached
 * the emission: a replay lets a class predict each decision before it is shown.
 */
export function ExplainedStep(props: { step: StepRecord; text: (token: number) => string; outcome: ReactNode }) {
  const { step, text } = props;
  const [frame, setFrame] = useState<number | null>(null);
  // An embed of the tree alone fits it to the slide's frame (DraftTree's fitFrame).
  const [treeEmbed] = useState(() => embedsView('tree'));
  const last = step.emitted.at(-1);
  const finalOrigin = last && (last.origin === 'correction' || last.origin === 'bonus') ? last.origin : null;
  const { explained, nodes, frames } = useMemo(() => {
    const shape = { drafts: step.drafts, validLengths: step.validLengths, sources: step.draftSources };
    const explained = explainStep(step.decisions ?? [], shape, text);
    const nodes = draftTree(shape, explained.cells, {
      draft: step.chosen,
      accepted: step.accepted,
      finalToken: finalOrigin && last ? last.token : null,
      finalOrigin,
    });
    return { explained, nodes, frames: playbackFrames(step, explained, text) };
  }, [step, text, finalOrigin, last]);
  const panel = useRef<HTMLDivElement>(null);
  const [exporting, setExporting] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  // The video button shows only where WebCodecs can encode VP8.
  const [video, setVideo] = useState(false);
  useEffect(() => {
    let live = true;
    void canEncodeVideo().then((can) => live && setVideo(can));
    return () => {
      live = false;
    };
  }, []);
  const exportStep = async (format: ReplayFormat) => {
    if (!panel.current) return;
    setExporting({ busy: true, error: null });
    try {
      const blob = await exportReplay(panel.current, frames.length, (at) => flushSync(() => setFrame(at)), format);
      download(`speclab-step-${step.index + 1}-${REPLAY_WIDTH}x${REPLAY_HEIGHT}.${format}`, blob);
      setExporting({ busy: false, error: null });
    } catch (error) {
      setExporting({ busy: false, error: `Export failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  };
  const current = frame === null ? undefined : frames[frame];
  const view = current ? viewAt(current, explained) : null;
  // The dashboard shows the run before this step until the replay reaches its emission (src/ui/replayView.ts).
  const setUi = useSpec((s) => s.setUi);
  const replaying = current !== undefined;
  const emitted = current?.phase === 'emission';
  useEffect(() => {
    setUi({ replay: replaying ? { step: step.index, emitted } : null });
  }, [setUi, replaying, emitted, step.index]);
  useEffect(() => () => setUi({ replay: null }), [setUi]);
  return (
    <div className={`explained-step${replaying ? ' replaying' : ''}`} ref={panel} data-testid="explained-step">
      <StepPlayer frames={frames} frame={frame} setFrame={setFrame} />
      <p className="replay-export">
        <button
          type="button"
          onClick={() => void exportStep('gif')}
          disabled={exporting.busy}
          data-testid="export-step"
        >
          {exporting.busy ? 'Exporting the replay…' : `Export this step (GIF, ${REPLAY_WIDTH} × ${REPLAY_HEIGHT})`}
        </button>
        {video && (
          <button
            type="button"
            onClick={() => void exportStep('webm')}
            disabled={exporting.busy}
            data-testid="export-video"
          >
            Export as video (WebM)
          </button>
        )}
        {exporting.error !== null && (
          <span className="error" role="alert">
            {exporting.error}
          </span>
        )}
      </p>
      {step.decisions === null && (
        <p className="error">
          This step’s decisions were not recorded: the CPU twin’s replay of the GPU’s step differed by f32 rounding, so
          only the outcome is shown.
        </p>
      )}
      {allForced(step) && (
        <p className="all-forced" data-testid="all-forced">
          {ALL_FORCED}: every drafted token is the one token the schema allows there (q = p = 1), so each test below
          passes but for rounding.
        </p>
      )}
      <div className="replay-tree">
        <h3>
          Draft tree <HelpButton topic="drafts" />
        </h3>
        <DraftTree
          nodes={nodes}
          text={text}
          finalOrigin={finalOrigin}
          view={view}
          direction={replaying ? 'down' : 'across'}
          fitFrame={treeEmbed}
          decided={(node) =>
            node.drafts.some((k) => {
              const decision = explained.cells[k]?.[node.depth - 1]?.decision;
              return decision !== null && decision !== undefined && view !== null && decision <= view.revealedDecision;
            })
          }
        />
      </div>
      <div className="replay-grid">
        <h3>
          Every decision, with its numbers <HelpButton topic="inspector" />
        </h3>
        <DecisionGrid step={step} explained={explained} text={text} view={view} />
      </div>
      <div className="replay-rest">
        <DecisionList explained={explained} view={view} />
        {(!view || view.phase === 'emission') && (
          <div data-testid="step-outcome">
            {props.outcome}
            {step.trace && (
              <BlockTrace trace={step.trace} chosen={step.chosen} draft={step.drafts[step.chosen] ?? []} text={text} />
            )}
          </div>
        )}
      </div>
    </div>
  );
}
