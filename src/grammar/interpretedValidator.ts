import { Validator } from '@cfworker/json-schema';
import { OUTPUT_CHECK_LIMITS } from '../contract/limits';
import type { SchemaValidator } from './score';

/** Thrown from inside the validator when a check has spent its steps; caught below, never seen outside. */
class CheckAbandoned extends Error {}

/** Steps the check under way may still take: each read of a schema property is one. */
let stepsLeft = Infinity;

const proxies = new WeakMap<object, object>();

/**
 * The schema seen through proxies that count every property read. The validator walks a schema by reading
 * its properties, so counting reads bounds its work however the schema's $refs and combinators multiply it,
 * without a change to the validator itself. The same object always gets the same proxy (the validator
 * compares sub-schemas by identity).
 */
function counted<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  let proxy = proxies.get(value);
  if (!proxy) {
    proxy = new Proxy(value, {
      get(target, key, receiver) {
        if (--stepsLeft < 0) throw new CheckAbandoned();
        return counted(Reflect.get(target, key, receiver) as unknown);
      },
    });
    proxies.set(value, proxy);
  }
  return proxy as T;
}

const validators = new WeakMap<object, Validator>();

/** How deeply arrays and objects nest in a parsed value, counted without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * @cfworker/json-schema interprets the schema, with no eval: the validator the browser app uses. Each check
 * (the validator's first build included) has a budget of OUTPUT_CHECK_LIMITS.steps schema reads: a schema
 * whose shared $defs multiply the work (each referencing the next twice) would otherwise take exponential
 * time, in the worker where nothing can interrupt it. A check past its budget is abandoned, saying so.
 */
export const interpretedValidator: SchemaValidator = (schema, value) => {
  const started = performance.now();
  stepsLeft = OUTPUT_CHECK_LIMITS.steps;
  try {
    let validator = validators.get(schema);
    if (!validator) {
      validator = new Validator(counted(schema) as ConstructorParameters<typeof Validator>[0], '2020-12', false);
      validators.set(schema, validator);
    }
    const result = validator.validate(value);
    return result.valid ? null : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`).join('; ');
  } catch (error) {
    // The validator recurses once a level or more: a deeply nested output under a recursive schema (a hostile
    // server's `[[[…]]]`) runs out of stack, which is caught here as the check's depth bound.
    if (error instanceof RangeError && /call stack/i.test(error.message))
      return `output check abandoned: the output nests ${nestingDepth(value)} levels deep, deeper than the check can follow, so the output is unchecked`;
    if (!(error instanceof CheckAbandoned)) throw error;
    const steps = OUTPUT_CHECK_LIMITS.steps.toLocaleString('en-US');
    return `output check abandoned after ${Math.round(performance.now() - started)} ms: checking this output against the schema took more than ${steps} steps (its $refs or combinators multiply the work), so the output is unchecked`;
  } finally {
    stepsLeft = Infinity;
  }
};
