import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'public'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      // Token and model text is never injected as HTML.
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render text, never HTML.' },
        { selector: "AssignmentExpression > MemberExpression[property.name=/^(innerHTML|outerHTML)$/]", message: 'Render text, never HTML.' },
      ],
    },
  },
  // One door for every download: src/contract/boundedFetch.ts bounds the time, the pace and the size of a read
  // (docs/reliability.md). A bare fetch elsewhere is an unbounded read. Tests (test/) are outside it: they
  // fetch from their own local servers in Node.
  {
    files: ['src/**/*.{ts,tsx}', 'tools/**/*.ts'],
    ignores: [
      // The door itself.
      'src/contract/boundedFetch.ts',
      // The service worker forwards the page's own requests (already bounded by their callers) to the network.
      'src/serviceWorker.ts',
    ],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts): a size cap, timeouts and a pace.' }],
      'no-restricted-properties': [
        'error',
        { object: 'globalThis', property: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts).' },
        { object: 'window', property: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts).' },
        { object: 'self', property: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts).' },
      ],
    },
  },
);
