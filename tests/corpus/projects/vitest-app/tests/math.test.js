import { expect, test } from "vitest";
import { area } from "../src/math.js";

test("area of a square", () => {
  expect(area(2, 2)).toBe(4);
});

test("area of a line", () => {
  expect(area(5, 0)).toBe(0);
});
