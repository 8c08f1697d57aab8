import { describe, expect, it } from 'vitest';
import { draftingCaption, questionOf } from '../../src/ui/playback';

describe('a replay asks before it answers', () => {
  it('turns a token test into its question, without the verdict', () => {
    const question = questionOf('u = 0.412 < min(1, p/q) = 0.830 → accepted');
    expect(question).toBe('u = 0.412; threshold min(1, p/q) = 0.830: accept?');
    expect(question).not.toMatch(/accepted|rejected|<|≥/);
  });

  it('asks a block test whether the block is kept up to there, with h_i’s formula', () => {
    const question = questionOf(
      'u = 0.700 ≥ h_1 = Z_1/(Z_1 + 1 − w_1) = 0.100/(0.100 + 1 − 0.500) = 0.167 → not accepted up to here: τ = 0, the block keeps none of its tokens',
    );
    expect(question).toBe(
      'u = 0.700; threshold h_1 = Z_1/(Z_1 + 1 − w_1) = 0.100/(0.100 + 1 − 0.500) = 0.167: keep the block up to here?',
    );
  });

  it('does not name the token a transport choice picks, and asks nothing of a line that tests nothing', () => {
    expect(questionOf('u = 0.300 < F(“cat”) = 0.400 → “cat” accepted (the transport plan’s flow)')).not.toContain(
      'cat',
    );
    expect(questionOf('draft 2 is block-verified from position 1')).toBeNull();
  });

  it('asks which token the final u picks, with its law, and leaves the token to the answer', () => {
    const question = questionOf(
      'u = 0.246 → “Maria” at position 5, drawn from bonus: the target’s next-token distribution after every draft token',
    );
    expect(question).toBe(
      'u = 0.246: which token at position 5? (drawn from bonus: the target’s next-token distribution after every draft token)',
    );
    expect(question).not.toContain('Maria');
  });

  it('says only the draft model’s tokens were sampled from q: ◆ and ↺ tokens were drafted without it', () => {
    const drafts = [
      [1, 2, 3],
      [1, 4, 5],
    ];
    const model = draftingCaption(
      {
        drafts,
        draftSources: [
          ['model', 'model', 'model'],
          ['model', 'model', 'model'],
        ],
      },
      3,
    );
    expect(model).toBe(
      'Drafting: 2 drafts of up to 3 tokens, every token sampled by the small model from its distribution q.',
    );
    const mixed = draftingCaption(
      {
        drafts,
        draftSources: [
          ['grammar', 'model', 'lookup'],
          ['grammar', 'model', 'model'],
        ],
      },
      3,
    );
    expect(mixed).toContain(
      '3 tokens sampled by the small model from its distribution q, 3 drafted without it (◆ forced by the schema, ↺ looked up; q = 1)',
    );
    expect(mixed).not.toContain('every token sampled');
  });
});
