import { DECODE_METHODS, decodeMethodInfo, type DecodeMethod } from '../contract/runParams';

/** Display helpers: a ratio is shown with its name and denominator, never as a bare percentage. */
export const percent = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
export const fixed = (value: number | null, digits = 2) =>
  value === null || !Number.isFinite(value) ? '—' : value.toFixed(digits);

/** A token's text made visible: spaces and newlines shown, so a teacher can point at them. */
export function visibleToken(text: string): string {
  return text.replaceAll('\n', '↵').replaceAll(' ', '·') || '∅';
}

/** The methods' labels, from the method registry. */
export const METHOD_LABELS = Object.fromEntries(
  DECODE_METHODS.map((method) => [method, decodeMethodInfo(method).label]),
) as Readonly<Record<DecodeMethod, string>>;

/** Short names for a chart's axis, where full labels would overlap; a chart using them lists them in its legend. */
export const METHOD_SHORT: Readonly<Record<DecodeMethod, string>> = {
  ar: 'AR',
  'ar+jump-forward': 'AR+JF',
  tokenwise: 'TW',
  gbv: 'GBV',
  spectr: 'SpecTr',
  'spectr-gbv': 'ST-GBV',
  'optimal-tree': 'OptTree',
};

const THREE_SIGNIFICANT = new Intl.NumberFormat('en', { maximumSignificantDigits: 3 });

/** Chart ticks and tooltips: three significant figures, so a reader sees 3.22, not 3.2194507377493253. */
export const sig3 = (value: number) => (Number.isFinite(value) ? THREE_SIGNIFICANT.format(value) : '—');

/** A probability that keeps small values visible: 0.412, 0.0031, 2.4e-7 (never "0.000" for a positive p). */
export function prob(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  if (value === 0 || value >= 0.01) return value.toFixed(3);
  return value >= 1e-4 ? value.toPrecision(2) : value.toExponential(1);
}
