import { Ajv, type ValidateFunction } from 'ajv';
import type { SchemaValidator } from './score';

const validators = new WeakMap<object, ValidateFunction>();
// strict: false lets ajv accept every keyword a user may write; it still checks the ones it knows.
const ajv = new Ajv({ strict: false, allErrors: true });

/** ajv, compiled once per schema object. It generates code, so it is for Node, not the CSP'd browser. */
export const ajvValidator: SchemaValidator = (schema, value) => {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors);
};
