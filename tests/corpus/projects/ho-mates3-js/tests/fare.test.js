const { fare } = require("../src/route");

test("charges three euros a stop", () => {
  expect(fare(3)).toBe(9);
});
