/**
 * The tools' output formats: CSV for --csv (one row per record, its scalar fields and intervals only: other nested
 * objects stay in the JSON) and snake_case keys, the one key style of every JSON output.
 */
/** camelCase to snake_case: `bareP50` → `bare_p50`, `maskBytesPerStep` → `mask_bytes_per_step`; single capitals such as K, L, R stay. */
const snake = (key: string) => (/^[A-Z]$/.test(key) ? key : key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());

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

/** An interval ({low, high}) as two columns, `<key>_low` and `<key>_high`. */
const flattenIntervals = (row: object): object =>
  Object.fromEntries(
    Object.entries(row).flatMap(([key, value]): [string, unknown][] => {
      const interval = value as { low?: unknown; high?: unknown } | null;
      const isInterval =
        interval !== null && typeof interval === 'object' && Object.keys(interval).join() === 'low,high';
      return isInterval
        ? [
            [`${key}_low`, interval.low],
            [`${key}_high`, interval.high],
          ]
        : [[key, value]];
    }),
  );

export function toCsv(records: readonly object[]): string {
  const rows = records.map(flattenIntervals);
  const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  // A column holds scalars (or null) in every row; one that holds an object anywhere stays in the JSON.
  const columns = keys.filter((key) => rows.every((row) => scalar((row as Record<string, unknown>)[key] ?? null)));
  const lines = [
    columns.map(snake).join(','),
    ...rows.map((row) => columns.map((column) => cell((row as Record<string, unknown>)[column])).join(',')),
  ];
  return `${lines.join('\n')}\n`;
}
