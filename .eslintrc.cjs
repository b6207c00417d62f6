/** @type {import('eslint').Linter.Config} */
module.exports = {
  root: true,
  parser: '@typescript-eslint/parser',
  parserOptions: { ecmaVersion: 2022, sourceType: 'module' },
  plugins: ['@typescript-eslint'],
  extends: ['eslint:recommended', 'plugin:@typescript-eslint/recommended'],
  env: { node: true, es2022: true },
  ignorePatterns: ['node_modules/', 'dist/', 'coverage/', '**/fixtures/**/expected/**', '.tmp/'],
  rules: {
    '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    '@typescript-eslint/no-explicit-any': 'error',
    '@typescript-eslint/no-unsafe-function-type': 'off',
    'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
  },
  overrides: [
    {
      // The JavaScript files: bench/, scripts/, test fixtures, bins. Node ES modules (CommonJS for .cjs), checked by
      // the recommended rules; the TypeScript-only rules do not apply to them.
      files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
      parser: 'espree',
      parserOptions: { ecmaVersion: 2023, sourceType: 'module' },
      extends: ['eslint:recommended'],
      rules: {
        '@typescript-eslint/consistent-type-imports': 'off',
        '@typescript-eslint/no-require-imports': 'off',
        '@typescript-eslint/no-var-requires': 'off',
        'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
        '@typescript-eslint/no-unused-vars': 'off',
      },
    },
    {
      files: ['**/*.cjs'],
      parserOptions: { sourceType: 'script' },
    },
    {
      files: ['jest.config.ts', 'jest.unit.config.ts', 'jest.other-node.config.ts'],
      rules: { 'no-restricted-syntax': 'off' },
    },
    {
      files: ['**/test/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
      rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
    },
  ],
};
