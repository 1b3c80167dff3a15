// ESLint's flat config for the dashboard's scripts (make lint runs the
// pinned eslint through npx). It imports nothing: ESLint's recommended
// rules and the browser's globals are written out below, so the lint
// needs no package beside eslint itself and no node_modules in the tree.

// recommended is @eslint/js 10.0.1's "recommended" set.
const recommended = [
  'constructor-super', 'for-direction', 'getter-return', 'no-async-promise-executor', 'no-case-declarations',
  'no-class-assign', 'no-compare-neg-zero', 'no-cond-assign', 'no-const-assign', 'no-constant-binary-expression',
  'no-constant-condition', 'no-control-regex', 'no-debugger', 'no-delete-var', 'no-dupe-args', 'no-dupe-class-members',
  'no-dupe-else-if', 'no-dupe-keys', 'no-duplicate-case', 'no-empty', 'no-empty-character-class', 'no-empty-pattern',
  'no-empty-static-block', 'no-ex-assign', 'no-extra-boolean-cast', 'no-fallthrough', 'no-func-assign', 'no-global-assign',
  'no-import-assign', 'no-invalid-regexp', 'no-irregular-whitespace', 'no-loss-of-precision', 'no-misleading-character-class',
  'no-new-native-nonconstructor', 'no-nonoctal-decimal-escape', 'no-obj-calls', 'no-octal', 'no-prototype-builtins',
  'no-redeclare', 'no-regex-spaces', 'no-self-assign', 'no-setter-return', 'no-shadow-restricted-names', 'no-sparse-arrays',
  'no-this-before-super', 'no-unassigned-vars', 'no-undef', 'no-unexpected-multiline', 'no-unreachable', 'no-unsafe-finally',
  'no-unsafe-negation', 'no-unsafe-optional-chaining', 'no-unused-labels', 'no-unused-private-class-members', 'no-unused-vars',
  'no-useless-assignment', 'no-useless-backreference', 'no-useless-catch', 'no-useless-escape', 'no-with',
  'preserve-caught-error', 'require-yield', 'use-isnan', 'valid-typeof',
];

// browser are the page's globals beyond the language's own: the whole
// list of what the scripts reach of the browser.
const browser = [
  'console', 'crypto', 'document', 'fetch', 'getSelection', 'history', 'location', 'navigator', 'Node',
  'performance', 'sessionStorage', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'URLSearchParams', 'window',
];

export default [
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: Object.fromEntries(browser.map(g => [g, 'readonly'])),
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      ...Object.fromEntries(recommended.map(r => [r, 'error'])),
      // Beyond the recommended set: strict comparisons, no var, and none of
      // the HTML parsers the page never uses (TestScriptsUseNoHTMLSinks).
      eqeqeq: 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-properties': ['error',
        { property: 'innerHTML', message: 'put text on the page as text (el)' },
        { property: 'outerHTML', message: 'put text on the page as text (el)' },
        { property: 'insertAdjacentHTML', message: 'put text on the page as text (el)' },
        { object: 'document', property: 'write', message: 'put text on the page as text (el)' }],
    },
  },
];
