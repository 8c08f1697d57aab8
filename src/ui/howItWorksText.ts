/**
 * Every sentence SpecLab uses to teach, in one place: "How it works" (each topic's explanation and worked
 * example) and the notes that sit beside the figures they explain (A/D beside the counters, block efficiency
 * beside mean acceptance length in the race). Checked line by line against docs/verification.md;
 * test/ui/howItWorksText.test.ts pins the key claims, so a rewrite cannot drop them silently.
 */
import type { DraftSource, FreeSource } from '../core/draftLaw';
import type { HelpTopic } from '../store/store';

export const TOPIC_TITLES: Readonly<Record<HelpTopic, string>> = {
  speculative: 'Speculative decoding, and why it is lossless',
  residual: 'The residual and the bonus token',
  verification: 'Token-wise vs block verification',
  drafts: 'Multiple drafts: SpecTr and SpecTr-GBV',
  counters: 'The grammar mask and the counters R, I, D, A',
  'mean-length': 'Mean acceptance length',
  histogram: 'The histogram and its expected line',
  inspector: 'Reading the step inspector',
  heads: 'Draft heads vs draft models (EAGLE, Medusa)',
};

export interface TopicText {
  /** Paragraphs of the explanation. */
  body: readonly string[];
  example: string;
}

/** Short plain explanations, one worked example each, in the order a lecture would take them. */
export const TOPIC_TEXT: Readonly<Record<HelpTopic, TopicText>> = {
  speculative: {
    body: [
      'A small draft model guesses the next few tokens, each drawn from its distribution q; the large target model scores all of them in one forward pass, giving its distribution p at each position.',
      'A drafted token x is kept with probability min(1, p(x)/q(x)): always when the target likes it at least as much as the draft did, less often when the draft over-proposed it. A rejected guess is replaced by a token drawn from the residual (what the target wanted that the draft did not cover), and the step ends there.',
      'Done this way, every output token has exactly the target’s distribution: the same distribution as sampling the target alone, not the same text (the random draws differ), at fewer target forwards.',
    ],
    example:
      'The draft proposes “cat” with q = 0.5; the target gives it p = 0.3. We keep it when u < min(1, p/q) = 0.6. Drawn u = 0.412 → accepted. Over many runs “cat” is proposed and kept with probability q · min(1, p/q) = 0.5 · 0.6 = 0.3: exactly the target’s p.',
  },
  residual: {
    body: [
      'When a draft token is rejected, the replacement (the correction token) comes from a residual: the target’s probability that the accepted tokens did not already cover. Each method has its own. Token-wise: normalise(max(0, p − q)) at the rejected position. GBV: normalise(max(0, w_τ·p − q)) at the position after the τ kept tokens, with the running weight w_τ. SpecTr: the K-SEQ residual normalise(p − min(q, p/ρ*)·(1 − (1 − β)^m)/β), after all m candidates fail. SpecTr-GBV: the residual of the last block it verified.',
      'When every draft token is accepted, the target’s forward has already computed its distribution for the next position, so one more token comes free: the bonus token, drawn straight from p.',
    ],
    example:
      'Three tokens with p = (0.5, 0.3, 0.2) and q = (0.2, 0.6, 0.2): max(0, p − q) = (0.3, 0, 0), so after a rejection the correction is token 1 for sure. The draft already covers all of the target’s probability for tokens 2 and 3.',
  },
  verification: {
    body: [
      'Token-wise verification tests draft tokens one by one, each with u < min(1, p/q), and stops at the first rejection.',
      'Block verification (GBV) judges the whole block of n drafted tokens. It keeps a running weight w_i = min(1, w_(i−1) · p_i/q_i) (w_0 = 1): how much of the first i tokens the target still backs. Z_i is the residual mass left if the block stops after i tokens. h_i is the chance to stop at i given that no later position was kept (the scan reached i): h_i = Z_i / (Z_i + 1 − w_i) for i < n, and h_n = w_n. The verifier scans i = n, n − 1, …, 1 and keeps the first i whose test u < h_i passes (τ = i); if none passes, τ = 0.',
      'A bad token early on no longer forces the block to stop there if the target backs the block as a whole; the output keeps exactly the target’s distribution.',
    ],
    example:
      'Two tokens, q = (2/3, 1/3) and p = (1/3, 2/3) at every position, L = 2: the expected number of accepted tokens is 10/9 ≈ 1.11 token-wise and 11/9 ≈ 1.22 with GBV, with the same output distribution.',
  },
  drafts: {
    body: [
      'With K drafts, more guesses can match the target. SpecTr walks the drafts position by position: the drafts that agree with what was accepted so far are the candidates, and K-SEQ tests them in turn with a scaled threshold min(1, p/(ρ*·q)).',
      'ρ* is the scaling K-SEQ solves for at each position, given q, p and the number of candidates m: the smallest ρ ≥ 1 at which the K-SEQ residual stays non-negative, so the output is exactly the target’s distribution. A smaller ρ would accept more often but would no longer be lossless. β is the chance that one candidate is accepted at that scaling.',
      'SpecTr-GBV block-verifies draft 1; if it stops early, the next unused draft that agrees with the accepted prefix is block-verified from there, with the previous block’s residual as its first target.',
      'What runs under the name “SpecTr-GBV” is SpecLab’s recursive GBV, not Algorithm 1–2 of the SpecTr-GBV paper (Lin et al. 2026). The same: K i.i.d. drafts of length L, verified as blocks one draft after another, the longest accepted prefix kept, one correction token drawn from a residual. What differs: the acceptance tests. The paper’s closed-form acceptance probability exceeds 1 at K = 1, and a transcription of it changes the output distribution (by up to 0.19 in total variation at K ≥ 2), so SpecLab uses GBV’s own tests, chained through residuals, which are proven lossless. The paper claims its method “achieves the optimal expected acceptance length physically attainable within the framework of i.i.d. draft generation”; that is the paper’s claim, not SpecLab’s: recursive GBV trails SpecTr or optimal-tree on some instances.',
      'Drafts need not all come from the draft model (“Drafts from”). Where the schema forces the next text (a key, a quote, a brace), it is drafted without calling the model: forced by the schema, q = 1, kept with probability p(x). Prompt lookup drafts the token that followed the last one to three tokens earlier in the prompt or output, also with q = 1. Every draft follows the same rule after the same prefix, so the K drafts stay independent draws from one law and every method stays lossless. The counters split drafted, invalidated and accepted tokens by source.',
      'Copying: structured output mostly repeats the prompt’s words, but a value inside JSON is split into tokens differently from the same words in running text (“ Maria” after a space, “Maria” after a quote), so matching token ids misses it. The copy drafter matches text: inside a string or number the JSON is writing, it finds the value’s text so far where a word starts in the prompt, not inside a code or a date (the first such place, so every draft picks the same one), takes the rest of that value up to its comma, colon or sentence end, or up to a small word such as “on” or “and” where the target may as well stop (a number without its trailing zeros), and tokenizes it again where it stands, so the tokens are the ones the target itself would write. At a value’s first character it copies the value that the key’s name points to in the prompt (“Order A-17” for order_id), only where that name occurs once.',
      'Why copying is lossless: the copied span is a function of the prompt and the tokens so far, nothing random, so it is a draft with q = 1 like the schema’s forced text. Each copied token x is kept with probability min(1, p(x)/1) = p(x), and a rejection draws from the target with x removed; every draft that reaches the same prefix copies the same span, so the K drafts stay independent draws from one law. A copy the target would not write costs only the rest of its step, never the output’s distribution. “Schema + copy” drafts only forced and copied text and needs no draft model; where neither proposes, the target writes one token.',
    ],
    example:
      'Drafts “the cat sat” and “the dog ran”. GBV on draft 1 accepts “the” and stops (τ = 1). Draft 2 agrees with “the”, so it is verified from position 2: if its block passes, the step emits “the dog ran” plus a bonus token instead of “the” plus a correction.',
  },
  counters: {
    body: [
      'R counts every token the drafter proposed. I counts, in each draft, the tokens from the first one the grammar (the JSON schema’s mask) did not allow to the end of that draft: the first is what the schema refused, the later ones come after an invalid token, and the verifier can accept none of them. D = R − I are the eligible tokens, and A the ones the target accepted.',
      'Three ratios answer three questions: grammar survival D/R, conditional acceptance A/D (what vLLM calls the draft acceptance rate), and end-to-end yield A/R.',
      'With K drafts, D counts every draft’s tokens but the step emits from one path through them, so A/D is at most about 1/K even when the drafts are good. A over the distinct drafted tokens (each shared prefix counted once) is shown beside it, and the JSON export carries both.',
    ],
    example:
      'R = 1,000 drafted tokens, I = 200 invalidated, so D = 800; the target accepts A = 600. Grammar survival = 800/1,000 = 80%; conditional acceptance = 600/800 = 75%; end-to-end yield = 600/1,000 = 60%.',
  },
  'mean-length': {
    body: [
      'Mean acceptance length is how many tokens one verification step produces: 1 + A / steps (the 1 is the correction or bonus token every step emits). Plain decoding is 1.',
      'Block efficiency, in the race table, is the tokens actually output divided by the target forwards. The two differ only at the end of a run: the step that reaches the stop token or the token limit may have accepted tokens past it, which A counts but the output drops.',
    ],
    example:
      '100 steps that accept 180 draft tokens in all: 1 + 180/100 = 2.8 tokens per target forward, whatever the draft length L.',
  },
  histogram: {
    body: [
      'The histogram counts steps by how many draft tokens they accepted (0 to L, the final token not counted).',
      'Its expected line is exact, not simulated: for each step, given that step’s drafts, SpecLab enumerates every choice the verifier could have made and sums the probabilities of each accepted length; summed over steps, that is how many steps we expect in each bar.',
    ],
    example:
      'Two steps whose distributions are (0.5, 0.5, 0) and (0.2, 0.3, 0.5) for 0, 1, 2 accepted tokens: the expected line is at 0.7, 0.8 and 0.5 steps.',
  },
  inspector: {
    body: [
      'Each cell of the grid states the test the verifier made there, with its drawn uniform u: “u = 0.412 < min(1, p/q) = 0.830 → accepted”. Cells the verifier never needed say “not examined”, and why; a draft’s first token the schema forbade says so, and the tokens after it say “after an invalid token”.',
      'The draft tree merges the drafts’ shared prefixes. “Play this step” replays the recorded step phase by phase: each test is first asked (u and its threshold), and its answer shows on the next frame, so a class can predict it.',
      "In the tree and the grid, a token that cost no draft-model call wears a mark: ◆ forced by the schema: q = 1, kept with probability p(x); ↺ looked up earlier in the prompt or output: q = 1, kept with probability p(x); ▣ copied from the prompt, re-tokenized in place: q = 1, kept with probability p(x); ▲ sampled from the draft head, which reads the target's own features: q is the head's row. A token without a mark was sampled from the draft model. AR + jump-forward drafts only ◆ tokens, so it needs no draft model at all.",
    ],
    example:
      'Token-wise, draft “a b c”: u = 0.20 < 0.90 → a accepted; u = 0.70 ≥ 0.40 → b rejected; c is not examined. The step emits “a” and a correction drawn from normalise(max(0, p − q)) at position 2.',
  },
  heads: {
    body: [
      'A draft model reads only the tokens and must rebuild, with far fewer parameters, everything the target has already worked out about the text. A draft head instead reads the target’s own last hidden state (its features: here the output of the final LayerNorm, the vector whose product with the token embedding gives the logits), so most of the work is done before it starts.',
      'EAGLE (Li et al. 2024) drafts at the feature level: a small network maps the feature at position t and the token at t + 1 (the token actually sampled, which settles which continuation the feature is about) to a predicted feature at t + 1, and the target’s own frozen LM head turns that into the draft row q. Deeper draft tokens feed the head its own predicted features. Medusa (Cai et al. 2024) instead puts several heads on the last hidden state, each predicting one token further ahead in parallel, without feeding its guesses back.',
      'What the target must export: its features at every position it scores, in the prefill and in every verification forward, beside its logits (our bundled targets have a features output; a Hub pair without one does not offer the head drafters). What a head costs: one small forward per draft depth (ours: 1.25 M multiply-adds a position, about a quarter of a target position, with 2.5 MB of float16 weights), and training against that one target: a head is useless for any other.',
      'It stays lossless for the same reason every drafter does: each draft token is sampled from the head’s row q (after temperature, and the schema’s mask when drafting is constrained), and the verifier is given exactly that q. The target decides; the head only proposes. ▲ marks a head’s token in the tree and the grid.',
    ],
    example:
      'With the verified prefix “… “age”: 3”, the target’s verification forward already computed the feature at “:” (the position whose logits chose “3”). The head reads that feature and “3”, predicts the feature at “3” and a row q that puts most mass on “4”; drafted “4” is then kept with probability min(1, p(4)/q(4)), exactly as a draft model’s token would be.',
  },
};

/** Beside A/D in the counter panel. */
export const DISTINCT_ACCEPTANCE_NOTE = 'A/D is at most about 1/K with K drafts; A over distinct drafted tokens';

/** Under the race table, where block efficiency and mean acceptance length stand side by side. */
export const RACE_EFFICIENCY_NOTE =
  'Block efficiency is the tokens output per target forward; mean acceptance length is 1 + A/steps. They differ only at the end of a run: the step that reaches the stop token or the token limit may accept tokens past it, which A counts but the output drops.';

/** The sources that draft without calling the draft model, in words. */
export const FREE_SOURCE_WORDS: Readonly<Record<FreeSource, string>> = {
  grammar: 'forced by the schema',
  copy: 'copied',
  lookup: 'looked up',
};

/** The mark a drafted token's source wears in the draft tree and the decision grid: a symbol with its words, never colour alone; none for the draft model. */
export const SOURCE_MARKS: Readonly<Record<Exclude<DraftSource, 'model'>, { symbol: string; label: string }>> = {
  grammar: { symbol: '◆', label: 'forced by the schema: q = 1, kept with probability p(x)' },
  lookup: { symbol: '↺', label: 'looked up earlier in the prompt or output: q = 1, kept with probability p(x)' },
  copy: { symbol: '▣', label: 'copied from the prompt, re-tokenized in place: q = 1, kept with probability p(x)' },
  head: {
    symbol: '▲',
    label: "sampled from the draft head, which reads the target's own features: q is the head's row",
  },
};
