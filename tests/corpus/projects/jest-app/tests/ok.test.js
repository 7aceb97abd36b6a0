const { sum } = require("../src/sum");

test("adds small numbers", () => {
  expect(sum(2, 2)).toBe(4);
});
