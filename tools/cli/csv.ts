/** The tools' output formats: CSV for --csv (one row per record, its scalar fields only: nested objects stay in the JSON) and snake_case keys, the one key style of every JSON output. */
const snake = (key: string) => (/^[A-Z]$/.test(key) ? key : key.replace(/([a-z0-9])([A-Z])(?=[a-z])/g, '$1_$2').toLowerCase());

/** The object with every key, at every depth, in snake_case (single capitals such as K, L, R stay). */
export function snakeKeys<T>(value: T): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snake(key), snakeKeys(inner)]));
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly object[]): string {
  const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  // A column holds scalars (or null) in every row; one that holds an object anywhere stays in the JSON.
  const columns = keys.filter((key) => rows.every((row) => scalar((row as Record<string, unknown>)[key] ?? null)));
  const lines = [columns.map(snake).join(','), ...rows.map((row) => columns.map((column) => cell((row as Record<string, unknown>)[column])).join(','))];
  return `${lines.join('\n')}\n`;
}
