const { findUser } = require("../src/users");

test("finds Ada", () => {
  expect(findUser(1).name).toBe("Ada");
});

test("finds Grace", () => {
  expect(findUser(2).name).toBe("Grace");
});

test("throws for a missing user", () => {
  expect(() => findUser(1)).toThrow("not found");
});
