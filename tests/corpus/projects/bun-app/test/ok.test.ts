import { expect, test } from "bun:test";
import { subtotal } from "../src/cart";

test("an empty cart costs nothing", () => {
  expect(subtotal([])).toBe(0);
});
