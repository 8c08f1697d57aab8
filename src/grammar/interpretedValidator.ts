import { Validator } from '@cfworker/json-schema';
import type { SchemaValidator } from './score';

const validators = new WeakMap<object, Validator>();

/** @cfworker/json-schema interprets the schema, with no eval: the validator the browser app uses. */
export const interpretedValidator: SchemaValidator = (schema, value) => {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], '2020-12', false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  return result.valid ? null : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`).join('; ');
};
