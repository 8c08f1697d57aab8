/** The scorecard's correctness rows for one completed output. */
export type OutputVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'truncated'; reason: string }
  | { kind: 'dead-end'; reason: string };

/**
 * Checks a value against a JSON schema, independently of the grammar: null when valid, otherwise why
 * not. Node uses ajv (ajvValidator.ts); the browser, whose Content-Security-Policy forbids the code
 * generation ajv relies on, uses an interpreting validator (interpretedValidator.ts).
 */
export type SchemaValidator = (schema: object, value: unknown) => string | null;

/**
 * Judges one output: JSON.parse, then the validator. An output that stopped at the token limit is
 * truncated; one the grammar could not continue is a dead end.
 */
export function scoreOutput(
  validate: SchemaValidator,
  schema: object,
  json: string,
  ending: 'stopped' | 'max-tokens' | 'dead-end',
): OutputVerdict {
  if (ending === 'dead-end') return { kind: 'dead-end', reason: 'the grammar allowed no next token' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = (error as Error).message;
    return ending === 'max-tokens' ? { kind: 'truncated', reason: `max tokens reached mid-JSON: ${reason}` } : { kind: 'invalid', reason };
  }
  const problem = validate(schema, value);
  return problem === null ? { kind: 'valid' } : { kind: 'invalid', reason: problem };
}
