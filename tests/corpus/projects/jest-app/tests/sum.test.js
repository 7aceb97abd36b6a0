const { sum, mean } = require("../src/sum");

test("adds 1 + 2 to equal 3", () => {
  expect(sum(1, 2)).toBe(4);
});

test("mean of three numbers", () => {
  expect(mean([1, 2, 3])).toBe(3);
});

test("sum of negatives", () => {
  expect(sum(-1, -2)).toBe(-3);
});
