import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/store/store';
import { DISTINCT_ACCEPTANCE_NOTE, RACE_EFFICIENCY_NOTE, SOURCE_MARKS, TOPIC_TEXT, TOPIC_TITLES } from '../../src/ui/howItWorksText';

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
    expect(all('counters')).toContain('from the first one the grammar (the JSON schema’s mask) did not allow to the end of that draft');
    expect(all('counters')).toContain('after an invalid token');
    expect(all('counters')).toContain('A/D is at most about 1/K');
    expect(DISTINCT_ACCEPTANCE_NOTE).toContain('at most about 1/K');
  });

  it('explains why block efficiency and mean acceptance length differ', () => {
    expect(all('mean-length')).toContain('1 + A / steps');
    expect(RACE_EFFICIENCY_NOTE).toMatch(/Block efficiency is the tokens output per target forward; mean acceptance length is 1 \+ A\/steps/);
    expect(RACE_EFFICIENCY_NOTE).toContain('stop token or the token limit');
  });

  it('explains the marks on drafts that cost no draft-model call: a distinct symbol each, with its words', () => {
    expect(SOURCE_MARKS.grammar.label).toBe('forced by the schema: q = 1, kept with probability p(x)');
    expect(all('inspector')).toContain(`${SOURCE_MARKS.grammar.symbol} forced by the schema: q = 1, kept with probability p(x)`);
    expect(all('inspector')).toContain(`${SOURCE_MARKS.lookup.symbol} looked up earlier in the prompt or output: q = 1, kept with probability p(x)`);
    expect(SOURCE_MARKS.grammar.symbol).not.toBe(SOURCE_MARKS.lookup.symbol);
  });

  it('teaches draft heads against draft models: why features help, what they cost, what the target must export, and the papers', () => {
    const text = all('heads');
    expect(TOPIC_TITLES.heads).toBe('Draft heads vs draft models (EAGLE, Medusa)');
    expect(text).toContain('reads the target’s own last hidden state');
    expect(text).toMatch(/EAGLE \(Li et al\. 2024\) drafts at the feature level/);
    expect(text).toContain('the target’s own frozen LM head');
    expect(text).toMatch(/Medusa \(Cai et al\. 2024\) .* each predicting one token further ahead in parallel, without feeding its guesses back/);
    expect(text).toContain('What the target must export: its features at every position it scores, in the prefill and in every verification forward');
    expect(text).toContain('What a head costs: one small forward per draft depth');
    expect(text).toContain('the verifier is given exactly that q');
    expect(all('inspector')).toContain(`${SOURCE_MARKS.head.symbol} ${SOURCE_MARKS.head.label}`);
    expect(new Set([SOURCE_MARKS.grammar.symbol, SOURCE_MARKS.lookup.symbol, SOURCE_MARKS.head.symbol]).size).toBe(3);
  });
});
