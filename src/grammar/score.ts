import type { DecodeEnding, OutputVerdict } from '../contract/runReport';

/**
 * Checks a value against a JSON schema, independently of the grammar: null when valid, otherwise why
 * not. The app and the CLIs use one interpreting validator (interpretedValidator.ts), which needs no code
 * generation (the Content-Security-Policy forbids it) and abandons a check past its step budget; the tests
 * hold its verdicts against ajv's (test/support/ajvValidator.ts).
 */
export type SchemaValidator = (schema: object, value: unknown) => string | null;

const CUT_SHORT: Record<Exclude<DecodeEnding, 'stopped' | 'dead-end'>, string> = {
  'max-tokens': 'max tokens reached mid-JSON',
  'context-full': "the models' context filled up mid-JSON",
  cancelled: 'the run was cancelled mid-JSON',
};

/**
 * Judges one output: JSON.parse, then the validator. An output cut short (token limit, full context,
 * cancelled) is truncated, saying which; one the grammar could not continue is a dead end.
 */
export function scoreOutput(
  validate: SchemaValidator,
  schema: object,
  json: string,
  ending: DecodeEnding,
): OutputVerdict {
  if (ending === 'dead-end') return { kind: 'dead-end', reason: 'the grammar allowed no next token' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = (error as Error).message;
    return ending === 'stopped'
      ? { kind: 'invalid', reason }
      : { kind: 'truncated', reason: `${CUT_SHORT[ending]}: ${reason}` };
  }
  const problem = validate(schema, value);
  return problem === null ? { kind: 'valid' } : { kind: 'invalid', reason: problem };
}
