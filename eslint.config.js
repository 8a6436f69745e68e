// ESLint (flat config): the recommended JavaScript rules and typescript-eslint's strict set on every source file;
// layout is Prettier's.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** What the portal's one browser script may use (it runs in the page, not in Node). */
const BROWSER_GLOBALS = Object.fromEntries(
  [
    'document',
    'window',
    'navigator',
    'fetch',
    'setTimeout',
    'URLSearchParams',
    'FormData',
    'DOMParser',
    'console',
    'clearTimeout',
    'FileReader',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'data/',
      'coverage/',
      'test-output/',
      'clients/typescript/src/generated/',
      'clients/typescript/dist/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strict,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly' },
    },
    rules: {
      // tsconfig has noUncheckedIndexedAccess: `rows[y]!` inside a loop bounded by the array is how this codebase says
      // "the index is in range"; a rewrite of every such site would add branches that cannot run.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `_name` marks a parameter a signature needs but the body does not.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSNonNullExpression > MemberExpression[property.name='credential']",
          message:
            'use callerOf(request) (src/http/api/v1/api-key-auth.ts): it says why the caller is there, and ' +
            'fails loudly where it is not',
        },
      ],
    },
  },
  {
    files: ['src/http/portal/assets/**/*.js', 'src/http/openapi/reference-theme/*.js'],
    languageOptions: { sourceType: 'script', globals: BROWSER_GLOBALS },
  },
  prettier,
  // After Prettier's config, which turns max-len off: Prettier wraps code at 120 columns, this holds what it cannot
  // wrap (comments, strings) to the same width. In tests, benches and scripts a URL and a template literal's text may
  // run over; a regular expression may everywhere (split, no tool could read it as one); generated data (*.data.ts)
  // is exempt. test/architecture/line-length.test.ts holds src/ and workers/ to it, Lua and templates included.
  {
    ignores: ['**/*.data.ts'],
    rules: {
      'max-len': [
        'error',
        { code: 120, comments: 120, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreTemplateLiterals: true },
      ],
    },
  },
  {
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    ignores: ['**/*.data.ts'],
    rules: { 'max-len': ['error', { code: 120, comments: 120, ignoreRegExpLiterals: true }] },
  },
);
