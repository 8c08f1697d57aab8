import { Ajv, type ValidateFunction } from 'ajv';

/** The scorecard's correctness rows for one completed output. */
export type OutputVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'truncated'; reason: string }
  | { kind: 'dead-end'; reason: string };

const validators = new WeakMap<object, ValidateFunction>();
// strict: false lets ajv accept every keyword a user may write; it still checks the ones it knows.
const ajv = new Ajv({ strict: false, allErrors: true });

function validatorFor(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/**
 * Judges one output independently of the grammar: JSON.parse, then ajv against the schema. An output that
 * stopped at the token limit is truncated; one the grammar could not continue is a dead end.
 */
export function scoreOutput(
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
  const validate = validatorFor(schema);
  if (validate(value)) return { kind: 'valid' };
  return { kind: 'invalid', reason: ajv.errorsText(validate.errors) };
}
