const { withTax } = require("../src/tax");

test("adds the tax to a net price", () => {
  expect(withTax(100, 0.2)).toBe(120);
});
