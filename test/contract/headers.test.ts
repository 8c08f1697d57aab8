/** The headers `vite preview` sends and those public/_headers asks a static host for are the same, CSP included. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../../src/contract/csp';
import config from '../../vite.config';

describe('response headers', () => {
  it('public/_headers lists exactly what vite preview sends: nosniff, SAMEORIGIN framing, the CSP, cross-origin isolation', () => {
    const lines = readFileSync('public/_headers', 'utf8').split('\n');
    const headers = Object.fromEntries(
      lines.filter((line) => line.startsWith('  ')).map((line) => [line.trim().slice(0, line.trim().indexOf(':')), line.trim().slice(line.trim().indexOf(':') + 1).trim()]),
    );
    expect(lines).toContain('/*');
    expect(headers).toEqual(config.preview?.headers);
    expect(headers).toMatchObject({ ...SECURITY_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
    expect(SECURITY_HEADERS).toEqual({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'SAMEORIGIN' });
  });
});
