import { describe, expect, test } from "vitest";
import { triple } from "../src/triple.js";

describe("two", () => {
  test.each(Array.from({ length: 22 }, (_, i) => i))("triples %i", (n) => {
    expect(triple(n)).toBe(n * 3);
  });
});
