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
        {
          selector: 'AssignmentExpression > MemberExpression[property.name=/^(innerHTML|outerHTML)$/]',
          message: 'Render text, never HTML.',
        },
        // A name from outside (a link, talk, manifest, schema, scrape, stored record, CLI option) must never reach
        // an object's prototype: `'toString' in {}` is true. Look names up with hasOwnKey/ownValue (src/contract/ownKeys.ts) or a Map.
        {
          selector: "BinaryExpression[operator='in'][left.type!='Literal']",
          message:
            'A computed name with `in` also finds inherited keys (toString, __proto__): use hasOwnKey or ownValue from src/contract/ownKeys.ts, or a Map.',
        },
        {
          selector:
            "MemberExpression[computed=true][object.name=/^(BUNDLED_PAIR_IDS|vocab)$/][property.type!='Literal']",
          message:
            'A lookup table indexed by a name from outside also finds inherited keys: use ownValue from src/contract/ownKeys.ts, or a Map.',
        },
        {
          selector: "MemberExpression[computed=true][object.property.name='vocab'][property.type!='Literal']",
          message:
            'A vocabulary indexed by a name from outside also finds inherited keys: use ownValue from src/contract/ownKeys.ts, or a Map.',
        },
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
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message: 'Read through boundedFetch (src/contract/boundedFetch.ts): a size cap, timeouts and a pace.',
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'globalThis',
          property: 'fetch',
          message: 'Read through boundedFetch (src/contract/boundedFetch.ts).',
        },
        { object: 'window', property: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts).' },
        { object: 'self', property: 'fetch', message: 'Read through boundedFetch (src/contract/boundedFetch.ts).' },
      ],
    },
  },
);
