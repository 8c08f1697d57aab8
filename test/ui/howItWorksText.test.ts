import { describe, expect, it } from 'vitest';
import { METHOD_REGISTRY } from '../../src/core/verify';
import { decodeMethodInfo } from '../../src/contract/runParams';
import { HELP_TOPICS } from '../../src/store/store';
import {
  DISTINCT_ACCEPTANCE_NOTE,
  RACE_EFFICIENCY_NOTE,
  SOURCE_MARKS,
  TOPIC_TEXT,
  TOPIC_TITLES,
} from '../../src/ui/howItWorksText';

const all = (topic: keyof typeof TOPIC_TEXT) => [...TOPIC_TEXT[topic].body, TOPIC_TEXT[topic].example].join(' ');

describe('the sentences that teach', () => {
  it('has a title, a body and a worked example for every help topic', () => {
    for (const topic of HELP_TOPICS) {
      expect(TOPIC_TITLES[topic].length).toBeGreaterThan(0);
      expect(TOPIC_TEXT[topic].body.length).toBeGreaterThan(0);
      expect(TOPIC_TEXT[topic].example.length).toBeGreaterThan(0);
    }
  });

  it('says a drafted token is kept with probability min(1, p/q), and that the output has the target’s distribution, not its text', () => {
    const text = all('speculative');
    expect(text).toContain('kept with probability min(1, p(x)/q(x))');
    expect(text).toContain('same distribution as sampling the target alone, not the same text');
    expect(text).not.toMatch(/kept only with the probability the target would have given it|same text, sampled faster/);
  });

  it('defines h_i and ρ* where it uses them', () => {
    expect(all('verification')).toMatch(/h_i = Z_i \/ \(Z_i \+ 1 − w_i\) for i < n, and h_n = w_n/);
    expect(all('verification')).toContain('w_i = min(1, w_(i−1) · p_i/q_i)');
    expect(all('drafts')).toMatch(/ρ\* is the scaling K-SEQ solves for/);
    expect(all('residual')).toContain('normalise(max(0, p − q))');
  });

  it('counts I from the first disallowed token to the end of its draft, and bounds A/D by about 1/K', () => {
    expect(all('counters')).toContain(
      'from the first one the grammar (the JSON schema’s mask) did not allow to the end of that draft',
    );
    expect(all('counters')).toContain('after an invalid token');
    expect(all('counters')).toContain('A/D is at most about 1/K');
    expect(DISTINCT_ACCEPTANCE_NOTE).toContain('at most about 1/K');
  });

  it('explains why block efficiency and mean acceptance length differ', () => {
    expect(all('mean-length')).toContain('1 + A / steps');
    expect(RACE_EFFICIENCY_NOTE).toMatch(
      /Block efficiency is the tokens output per target forward; mean acceptance length is 1 \+ A\/steps/,
    );
    expect(RACE_EFFICIENCY_NOTE).toContain('stop token or the token limit');
  });

  it('explains the marks on drafts that cost no draft-model call: a distinct symbol each, with its words', () => {
    expect(SOURCE_MARKS.grammar.label).toBe('forced by the schema: q = 1, kept with probability p(x)');
    expect(all('inspector')).toContain(
      `${SOURCE_MARKS.grammar.symbol} forced by the schema: q = 1, kept with probability p(x)`,
    );
    expect(all('inspector')).toContain(
      `${SOURCE_MARKS.lookup.symbol} looked up earlier in the prompt or output: q = 1, kept with probability p(x)`,
    );
    expect(SOURCE_MARKS.grammar.symbol).not.toBe(SOURCE_MARKS.lookup.symbol);
    expect(all('inspector')).toContain(
      `${SOURCE_MARKS.copy.symbol} copied from the prompt, re-tokenized in place: q = 1, kept with probability p(x)`,
    );
    const symbols = Object.values(SOURCE_MARKS).map((mark) => mark.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
  });

  it('explains copying: it matches text, not token ids, tokenizes the copy where it stands, and why that is lossless', () => {
    const text = all('drafts');
    expect(text).toContain('so matching token ids misses it. The copy drafter matches text');
    expect(text).toContain('the first such place, so every draft picks the same one');
    expect(text).toContain(
      'tokenizes it again where it stands, so the tokens are the ones the target itself would write',
    );
    expect(text).toContain(
      'Why copying is lossless: the copied span is a function of the prompt and the tokens so far',
    );
    expect(text).toContain('kept with probability min(1, p(x)/1) = p(x)');
    expect(text).toContain('so the K drafts stay independent draws from one law');
  });

  it('calls ρ* the smallest feasible scaling, never the largest', () => {
    expect(all('drafts')).toContain('the smallest ρ ≥ 1 at which the K-SEQ residual stays non-negative');
    expect(all('drafts')).not.toMatch(/largest that keeps/);
  });

  it('says h_i is the chance to stop at i given that no later position was kept', () => {
    expect(all('verification')).toContain('h_i is the chance to stop at i given that no later position was kept');
    expect(all('verification')).not.toMatch(/chance to stop at i:/);
  });

  it('gives each method its own residual', () => {
    const text = all('residual');
    expect(text).toContain('Token-wise: normalise(max(0, p − q))');
    expect(text).toContain('GBV: normalise(max(0, w_τ·p − q))');
    expect(text).toContain('SpecTr: the K-SEQ residual normalise(p − min(q, p/ρ*)·(1 − (1 − β)^m)/β)');
    expect(text).toContain('SpecTr-GBV: the residual of the last block it verified');
  });

  it('says that “SpecTr-GBV” runs recursive GBV, not the paper’s algorithm, and quotes the paper’s optimality as a claim', () => {
    const text = all('drafts');
    expect(text).toContain(
      'What runs under the name “SpecTr-GBV” is SpecLab’s recursive GBV, not Algorithm 1–2 of the SpecTr-GBV paper (Lin et al. 2026)',
    );
    expect(text).toContain('The paper’s closed-form acceptance probability exceeds 1 at K = 1');
    expect(text).toContain(
      'The paper claims its method “achieves the optimal expected acceptance length physically attainable within the framework of i.i.d. draft generation”; that is the paper’s claim, not SpecLab’s',
    );
    expect(METHOD_REGISTRY['spectr-gbv'].description).toContain('recursive GBV');
    expect(METHOD_REGISTRY['spectr-gbv'].description).toContain('not the paper’s Algorithm 1–2');
  });

  it('limits optimal-tree’s α* to the first position, and says ar+jump-forward verifies its forced tokens', () => {
    const description = METHOD_REGISTRY['optimal-tree'].description;
    expect(description).toContain('at the first position it accepts with α*');
    expect(description).toContain('over a whole block it is no optimum, and GBV can accept more');
    expect(description).not.toMatch(/each position accepts with α\*/);
    expect(decodeMethodInfo('ar+jump-forward').description).toContain('each kept with probability p(x)');
    expect(decodeMethodInfo('ar+jump-forward').description).not.toMatch(/appends/);
  });

  it('teaches draft heads against draft models: why features help, what they cost, what the target must export, and the papers', () => {
    const text = all('heads');
    expect(TOPIC_TITLES.heads).toBe('Draft heads vs draft models (EAGLE, Medusa)');
    expect(text).toContain('reads the target’s own last hidden state');
    expect(text).toMatch(/EAGLE \(Li et al\. 2024\) drafts at the feature level/);
    expect(text).toContain('the target’s own frozen LM head');
    expect(text).toMatch(
      /Medusa \(Cai et al\. 2024\) .* each predicting one token further ahead in parallel, without feeding its guesses back/,
    );
    expect(text).toContain(
      'What the target must export: its features at every position it scores, in the prefill and in every verification forward',
    );
    expect(text).toContain('What a head costs: one small forward per draft depth');
    expect(text).toContain('the verifier is given exactly that q');
    expect(all('inspector')).toContain(`${SOURCE_MARKS.head.symbol} ${SOURCE_MARKS.head.label}`);
    expect(new Set([SOURCE_MARKS.grammar.symbol, SOURCE_MARKS.lookup.symbol, SOURCE_MARKS.head.symbol]).size).toBe(3);
  });
});
