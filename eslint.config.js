// Flat config: typescript-eslint's recommended rules, plus the house rules that matter (no Math.random
// outside tests: seeded randomness only).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

module.exports = tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'runs/**', 'packages/cli/template/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use SeededRng from @turngym/core.' },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.js', 'scripts/**'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
