/**
 * Names from outside (a link, a talk, a manifest, a tokenizer, a schema, a scrape, a stored record, a CLI
 * option) are looked up only as an object's own keys: `'toString' in {}` is true and `{}['constructor']` is a
 * function, so a plain `in` or `obj[name]` lets such a name reach Object.prototype. The lint
 * (no-restricted-syntax in eslint.config.js) sends every such lookup here.
 */

/** Whether `key` is one of `record`'s own keys (never an inherited one such as toString or __proto__). */
export const hasOwnKey = <T extends object>(record: T, key: PropertyKey): key is keyof T & PropertyKey =>
  Object.hasOwn(record, key);

/** `record[key]` when `key` is an own key of `record`, else undefined. */
export const ownValue = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
