/** The headers `vite preview` sends and those public/_headers asks a static host for are the same, CSP included. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  EMBED_FRAME_POLICY,
  EMBED_PATHS,
  SECURITY_HEADERS,
  securityHeaders,
} from '../../src/contract/csp';
import config from '../../vite.config';

/** public/_headers as `{ path: { name: value } }`. */
function headerRules(): Record<string, Record<string, string>> {
  const rules: Record<string, Record<string, string>> = {};
  let path = '';
  for (const line of readFileSync('public/_headers', 'utf8').split('\n')) {
    if (line.startsWith('/')) rules[(path = line.trim())] = {};
    else if (line.startsWith('  ')) {
      const colon = line.indexOf(':');
      (rules[path] ??= {})[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
  }
  return rules;
}

describe('response headers', () => {
  it('public/_headers lists exactly what vite preview sends: nosniff, SAMEORIGIN framing, the CSP, cross-origin isolation', () => {
    const rules = headerRules();
    expect(rules['/*']).toEqual(config.preview?.headers);
    expect(rules['/*']).toMatchObject(securityHeaders('/'));
    expect(securityHeaders('/')).toEqual({ ...SECURITY_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
    expect(SECURITY_HEADERS).toEqual({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'SAMEORIGIN' });
  });

  it('embed.html alone may be framed by any site or file: page: frame-ancestors * file:, no X-Frame-Options, in vite preview and in public/_headers', () => {
    const rules = headerRules();
    expect(Object.keys(rules)).toEqual(['/*', ...EMBED_PATHS]);
    for (const path of EMBED_PATHS) {
      expect(securityHeaders(path)).toEqual({
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': `${CONTENT_SECURITY_POLICY}; frame-ancestors * file:`,
      });
      // A host adds this to the CSP of /*; a CSP with frame-ancestors makes the browser ignore X-Frame-Options.
      expect(rules[path]).toEqual({ 'Content-Security-Policy': EMBED_FRAME_POLICY });
    }
    expect(securityHeaders('/embed.html.map')).toEqual(securityHeaders('/'));
  });
});
