import { expect, test } from "@playwright/test";
import { cents, format, split } from "../src/money";

test.describe("money", () => {
  test("parses a price with one decimal", () => {
    expect(cents("1.5")).toBe(150);
  });

  test("formats cents", () => {
    expect(format(1234)).toBe("12.34");
  });

  test("splits a bill", () => {
    expect(split(100, 3)).toEqual([34, 33, 33]);
  });

  test("refuses to split nothing", () => {
    expect(split(100, 0)).toEqual([]);
  });
});
