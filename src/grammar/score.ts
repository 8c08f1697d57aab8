import type { DecodeEnding, OutputVerdict } from '../contract/runReport';

/**
 * Checks a value against a JSON schema, independently of the grammar: null when valid, otherwise why
 * not. Node uses ajv (ajvValidator.ts); the browser, whose Content-Security-Policy forbids the code
 * generation ajv relies on, uses an interpreting validator (interpretedValidator.ts).
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
export function scoreOutput(validate: SchemaValidator, schema: object, json: string, ending: DecodeEnding): OutputVerdict {
  if (ending === 'dead-end') return { kind: 'dead-end', reason: 'the grammar allowed no next token' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = (error as Error).message;
    return ending === 'stopped' ? { kind: 'invalid', reason } : { kind: 'truncated', reason: `${CUT_SHORT[ending]}: ${reason}` };
  }
  const problem = validate(schema, value);
  return problem === null ? { kind: 'valid' } : { kind: 'invalid', reason: problem };
}
