import { describe, expect, it } from "vitest";
import { add, mean } from "../src/calc.js";

describe("calc", () => {
  it("adds two numbers", () => {
    expect(add(1, 2)).toBe(3);
  });

  it("averages a list", () => {
    expect(mean([2, 4])).toBe(3);
  });

  it("adds nothing", () => {
    expect(add(0, 0)).toBeGreaterThan(0);
  });
});
