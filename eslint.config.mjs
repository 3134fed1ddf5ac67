// @ts-check
import eslint from '@eslint/js';
import eslintPluginPrettierRecommended from 'eslint-plugin-prettier/recommended';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'eslint.config.mjs',
      'dist/**',
      'coverage/**',
      'data/**',
      'jest.config.js',
      // Generated from the OpenAPI document by the build (scripts/build-console.js).
      'console/src/api/openapi.d.ts',
      // The scratch project's template: type-checked in the scratch project, against the package
      // it installs (scripts/kit-scratch-project.sh), which does not resolve here.
      'test/kit-project/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  eslintPluginPrettierRecommended,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      sourceType: 'commonjs',
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      // No reaching into a package's internals: they change without notice in a minor release.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*/constants', '@nestjs/*/constants.js', '**/enums/**', '**/dist/**'],
              message:
                "An internal path of a package: import from its public entry (its 'exports').",
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          // `_meta` is MCP's own public field; any other `_name` is a library's private member.
          selector: 'MemberExpression[property.name=/^_(?!meta$)[a-z]/]',
          message: 'A private member (`_name`) of a library: use its public API.',
        },
        {
          selector: 'MemberExpression[computed=true][property.value=/^_(?!meta$)[a-z]/]',
          message: 'A private member (`_name`) of a library: use its public API.',
        },
        {
          // A symbol found by its description is a library's private member by another name.
          selector: "CallExpression[callee.property.name='getOwnPropertySymbols']",
          message: "A library's private symbol: use its public API.",
        },
        {
          selector: "BinaryExpression[left.property.name='description']",
          message: "A symbol found by its description is a library's private member: use its public API.",
        },
        {
          selector:
            "CallExpression[callee.object.name='Reflect'][callee.property.name='getMetadata'][arguments.0.type='Literal']",
          message: "A framework's metadata read by its internal key: use its public API.",
        },
      ],
    },
  },
  {
    // One file, one subject: a file of src/ past 300 lines is split (specs excepted).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      // A function read at once: 80 lines of code at most (blank lines and comments aside).
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // supertest bodies and JSON fixtures are untyped by nature
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The operator console: a browser application (console/tsconfig.json), React's rules of hooks.
    files: ['console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser }, sourceType: 'module' },
    rules: { ...reactHooks.configs.recommended.rules },
  },
);
