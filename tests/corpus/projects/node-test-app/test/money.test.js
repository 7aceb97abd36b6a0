const test = require("node:test");
const assert = require("node:assert");
const { cents } = require("../src/money");

test("cents of a price", () => {
  assert.strictEqual(cents(19.99), 1999);
});

test("cents of a string", () => {
  assert.strictEqual(cents("5"), 500);
});

test("cents of a list", () => {
  assert.deepStrictEqual([cents(1), cents(2)], [100, 201]);
});
