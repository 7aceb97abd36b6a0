const { double } = require("../src/double");

describe("beta", () => {
  test.each(Array.from({ length: 20 }, (_, i) => i))("doubles %i", (n) => {
    expect(double(n)).toBe(n * 2);
  });
});
