const test = require("node:test");
const assert = require("node:assert");
const { slugify, words } = require("../src/slug");

test("slugify joins words with dashes", () => {
  assert.strictEqual(slugify("Hello Big World"), "hello-big-world");
});

test("slugify keeps digits", () => {
  assert.strictEqual(slugify("Top 10"), "top-10");
});

test("words counts words", () => {
  assert.strictEqual(words("a b c"), 3);
});
