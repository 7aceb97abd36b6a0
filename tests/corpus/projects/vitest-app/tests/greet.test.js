import { describe, expect, test } from "vitest";
import { greet, shout } from "../src/greet.js";

describe("greet", () => {
  test("keeps the capital letter of the name", () => {
    expect(greet("World")).toBe("Hello, World!");
  });

  test("shouts", () => {
    expect(shout("Ada")).toBe("HELLO, ADA!");
  });

  test("greets Grace", () => {
    expect(greet("Grace")).toBe("Hello, Grace!");
  });
});
