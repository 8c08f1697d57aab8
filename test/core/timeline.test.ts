import { describe, expect, it } from 'vitest';
import { TIMELINE_PREFIX, markPhase, markPhaseOnce } from '../../src/core/timeline';

const marks = (phase: string) => performance.getEntriesByName(TIMELINE_PREFIX + phase, 'mark').length;

describe('the start-up timeline', () => {
  it('records a phase marked once only the first time, and a plain mark every time', () => {
    for (let i = 0; i < 3; i++) markPhaseOnce('test: first steps');
    expect(marks('test: first steps')).toBe(1);
    markPhase('test: every time');
    markPhase('test: every time');
    expect(marks('test: every time')).toBe(2);
  });
});
