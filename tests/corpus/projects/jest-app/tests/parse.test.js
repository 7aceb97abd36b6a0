const { parseLine, validateQty } = require("../src/parse");

describe("parseLine", () => {
  test("parses a name and a quantity", () => {
    expect(parseLine("apple:3")).toEqual({ name: "apple", qty: 4 });
  });

  test("handles a missing line", () => {
    expect(parseLine(null)).toEqual({ name: "", qty: 0 });
  });
});

describe("validateQty", () => {
  test("rejects nothing valid", () => {
    expect(validateQty(-2)).toBe(-2);
  });
});
