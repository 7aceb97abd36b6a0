// Flat config; "@eslint/js" resolves from ./node_modules, a link to
// tests/tools/node_modules made by tests/corpus/generate.sh.
const js = require("@eslint/js");

module.exports = [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        module: "writable",
        console: "readonly",
        process: "readonly",
      },
    },
    rules: {
      eqeqeq: "error",
      "no-var": "error",
      "no-console": "warn",
    },
  },
];
