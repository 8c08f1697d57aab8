import { Ajv, type ValidateFunction } from 'ajv';
import type { SchemaValidator } from '../../src/grammar/score';

const validators = new WeakMap<object, ValidateFunction>();
// strict: false lets ajv accept every keyword a user may write; it still checks the ones it knows.
const ajv = new Ajv({ strict: false, allErrors: true });

/** ajv, compiled once per schema object: the tests' second opinion beside the app's and CLIs' bounded interpreting validator. */
export const ajvValidator: SchemaValidator = (schema, value) => {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors);
};
