import { expect, it } from "bun:test";
import { reserve, restock, skus } from "./stock";

const stock = new Map([["a-1", 4], ["b-2", 0]]);

it("adds to the quantity on restock", () => {
  expect(restock(stock, "a-1", 3).get("a-1")).toBe(7);
});

it("lists the skus in order", () => {
  expect(skus(stock)).toContain("c-3");
});

it("reserves a known sku", () => {
  expect(reserve(stock, "c-3", 1)).toBe(0);
});

it("reserves what is there", () => {
  expect(reserve(stock, "a-1", 1)).toBe(3);
});
