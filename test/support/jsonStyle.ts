/**
 * The one key style of every tool's JSON: a `schema_version` at the top and snake_case keys at
 * every depth; the paper's single capitals (K, L, R, I, D, A) stay words of their own (`recommended_L`), and
 * vLLM's metric names keep their colon.
 */
import { expect } from 'vitest';

const KEY = /^([a-z][a-z0-9]*|[A-Z])([_:]([a-z0-9]+|[A-Z]))*$/;

function badKeys(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => badKeys(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(KEY.test(key) ? [] : [`${path}.${key}`]),
    ...badKeys(inner, `${path}.${key}`),
  ]);
}

export function expectToolJson(json: unknown): void {
  expect(json).toHaveProperty('schema_version', 1);
  expect(badKeys(json, '$')).toEqual([]);
}
