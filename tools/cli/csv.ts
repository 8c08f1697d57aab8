/** CSV for the tools' --csv: one row per record, its scalar fields only (nested objects stay in the JSON), keys in snake_case as in the JSON. */
const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])(?=[a-z])/g, '$1_$2').toLowerCase();

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly object[]): string {
  const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  const columns = [...new Set(rows.flatMap((row) => Object.entries(row).filter(([, value]) => scalar(value)).map(([key]) => key)))];
  const lines = [columns.map(snake).join(','), ...rows.map((row) => columns.map((column) => cell((row as Record<string, unknown>)[column])).join(','))];
  return `${lines.join('\n')}\n`;
}
