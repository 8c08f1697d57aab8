import { useEffect, useRef, type ReactNode } from 'react';
import { HELP_TOPICS, type HelpTopic } from '../store/store';
import { useSpec } from './storeContext';
import { startTour } from './Tour';

const TOPIC_TITLES: Readonly<Record<HelpTopic, string>> = {
  speculative: 'Speculative decoding, and why it is lossless',
  residual: 'The residual and the bonus token',
  verification: 'Token-wise vs block verification',
  drafts: 'Multiple drafts: SpecTr and SpecTr-GBV',
  counters: 'The grammar mask and the counters R, I, D, A',
  'mean-length': 'Mean acceptance length',
  histogram: 'The histogram and its expected line',
  inspector: 'Reading the step inspector',
};

/** Short plain explanations, one worked example each, in the order a lecture would take them. */
const TOPICS: Readonly<Record<HelpTopic, { body: ReactNode; example: ReactNode }>> = {
  speculative: {
    body: (
      <p>
        A small draft model guesses the next few tokens; the large target model scores all of them in one forward pass. Each guess is kept only with the probability the target would have given it, and a
        rejected guess is replaced by a token drawn from what the target wanted instead. Done this way, the output has exactly the target’s distribution: we get the same text, sampled faster.
      </p>
    ),
    example: (
      <p>
        The draft proposes “cat” with q = 0.5; the target gives it p = 0.3. We keep it when u &lt; min(1, p/q) = 0.6. Drawn u = 0.412 → accepted. Over many runs “cat” survives with probability q · 0.6 = 0.3:
        exactly the target’s p.
      </p>
    ),
  },
  residual: {
    body: (
      <p>
        When a draft token is rejected, the replacement comes from the residual normalise(max(0, p − q)): the target’s probability that the draft did not already cover. When every draft token is accepted,
        the target’s prediction for the next position is free: the bonus token, drawn straight from the target.
      </p>
    ),
    example: (
      <p>
        Three tokens with p = (0.5, 0.3, 0.2) and q = (0.2, 0.6, 0.2): max(0, p − q) = (0.3, 0, 0), so after a rejection the correction is token 1 for sure. The draft already covers all of the target’s probability for tokens 2 and 3.
      </p>
    ),
  },
  verification: {
    body: (
      <p>
        Token-wise verification tests draft tokens one by one and stops at the first rejection. Block verification (GBV) judges the whole block: it keeps a running weight w_i = min(1, w_(i−1)·p_i/q_i), then
        scans from the end and stops at the first position i whose test u &lt; h_i passes. A bad token early on no longer forces the block to stop there if the target backs the block as a whole.
      </p>
    ),
    example: (
      <p>
        Two tokens, q = (2/3, 1/3) and p = (1/3, 2/3) at every position, L = 2: the expected number of accepted tokens is 10/9 ≈ 1.11 token-wise and 11/9 ≈ 1.22 with GBV, with the same output law.
      </p>
    ),
  },
  drafts: {
    body: (
      <>
        <p>
          With K drafts, more guesses can match the target. SpecTr walks the drafts position by position: the drafts that agree with what was accepted so far are the candidates, and K-SEQ tests them in turn
          with a scaled threshold min(1, p/(ρ*·q)). SpecTr-GBV block-verifies draft 1; if it stops early, the next unused draft that agrees with the accepted prefix is block-verified from there, with the
          previous block’s residual as its first target.
        </p>
        <p>
          Drafts need not all come from the draft model (“Drafts from”). Where the schema forces the next text (a key, a quote, a brace), it is drafted without calling the model: forced by the schema,
          q = 1, kept with probability p(x). Prompt lookup drafts the token that followed the last one to three tokens earlier in the prompt or output, also with q = 1. Every draft follows the same rule
          after the same prefix, so the K drafts stay independent draws from one law and every method stays lossless. The counters split drafted, invalidated and accepted tokens by source.
        </p>
      </>
    ),
    example: (
      <p>
        Drafts “the cat sat” and “the dog ran”. GBV on draft 1 accepts “the” and stops (τ = 1). Draft 2 agrees with “the”, so it is verified from position 2: if its block passes, the step emits “the dog ran”
        plus a bonus token instead of “the” plus a correction.
      </p>
    ),
  },
  counters: {
    body: (
      <p>
        R counts every token the drafter proposed. I counts those the grammar (the JSON schema’s mask) did not allow, so the verifier never had a chance to accept them. D = R − I are the eligible tokens, and A
        the ones the target accepted. Three ratios answer three questions: grammar survival D/R, conditional acceptance A/D (what vLLM calls the draft acceptance rate), and end-to-end yield A/R.
      </p>
    ),
    example: (
      <p data-testid="worked-example-counters">
        R = 1,000 drafted tokens, I = 200 invalidated, so D = 800; the target accepts A = 600. Grammar survival = 800/1,000 = 80%; conditional acceptance = 600/800 = 75%; end-to-end yield = 600/1,000 = 60%.
      </p>
    ),
  },
  'mean-length': {
    body: <p>Mean acceptance length is how many tokens one target forward produces: 1 + A / steps (the 1 is the correction or bonus token every step emits). Plain decoding is 1.</p>,
    example: <p>100 steps that accept 180 draft tokens in all: 1 + 180/100 = 2.8 tokens per target forward, whatever the draft length L.</p>,
  },
  histogram: {
    body: (
      <p>
        The histogram counts steps by how many draft tokens they accepted (0 to L, the final token not counted). Its expected line is exact, not simulated: for each step, given that step’s drafts, SpecLab
        enumerates every choice the verifier could have made and sums the probabilities of each accepted length; summed over steps, that is how many steps we expect in each bar.
      </p>
    ),
    example: <p>Two steps whose laws are (0.5, 0.5, 0) and (0.2, 0.3, 0.5) for 0, 1, 2 accepted tokens: the expected line is at 0.7, 0.8 and 0.5 steps.</p>,
  },
  inspector: {
    body: (
      <p>
        Each cell of the grid states the test the verifier made there, with its drawn uniform u: “u = 0.412 &lt; min(1, p/q) = 0.830 → accepted”. Cells the verifier never needed say “not examined”, and why;
        tokens the schema forbade say so. The draft tree merges the drafts’ shared prefixes; “Play this step” replays the recorded step phase by phase.
      </p>
    ),
    example: (
      <p>
        Token-wise, draft “a b c”: u = 0.20 &lt; 0.90 → a accepted; u = 0.70 ≥ 0.40 → b rejected; c is not examined. The step emits “a” and a correction drawn from normalise(max(0, p − q)) at position 2.
      </p>
    ),
  },
};

/** A "?" beside a counter or chart, opening the matching part of "How it works". */
export function HelpButton(props: { topic: HelpTopic }) {
  const setUi = useSpec((s) => s.setUi);
  return (
    <button type="button" className="help-q" aria-label={`How it works: ${TOPIC_TITLES[props.topic]}`} title={TOPIC_TITLES[props.topic]} onClick={() => setUi({ howItWorks: props.topic })}>
      ?
    </button>
  );
}

export function HowItWorksButton() {
  const setUi = useSpec((s) => s.setUi);
  return (
    <button type="button" onClick={() => setUi({ howItWorks: 'speculative' })} data-tour="how-it-works">
      How it works
    </button>
  );
}

export function HowItWorks() {
  const topic = useSpec((s) => s.ui.howItWorks);
  const setUi = useSpec((s) => s.setUi);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!topic) return;
    const section = panel.current?.querySelector(`[data-topic="${topic}"]`);
    section?.scrollIntoView({ block: 'start' });
    (section?.querySelector('h3') as HTMLElement | null)?.focus();
  }, [topic]);
  if (!topic) return null;
  const close = () => setUi({ howItWorks: null });
  return (
    <div
      className="how-it-works"
      role="dialog"
      aria-modal="false"
      aria-labelledby="how-heading"
      data-testid="how-it-works"
      ref={panel}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.stopPropagation();
        close();
      }}
    >
      <div className="how-head">
        <h2 id="how-heading">How it works</h2>
        <button
          type="button"
          onClick={() => {
            // The tour points at the page, so the panel makes way for it.
            close();
            startTour();
          }}
        >
          Take the tour
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {HELP_TOPICS.map((id) => (
        <section key={id} data-topic={id} aria-labelledby={`how-${id}`} className={id === topic ? 'current' : undefined}>
          <h3 id={`how-${id}`} tabIndex={-1}>
            {TOPIC_TITLES[id]}
          </h3>
          {TOPICS[id].body}
          <div className="worked-example">
            <strong>Worked example.</strong> {TOPICS[id].example}
          </div>
        </section>
      ))}
    </div>
  );
}
