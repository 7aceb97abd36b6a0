import { describe as group, expect, test } from "bun:test";
import { cheapest, describe, discount, labels, subtotal } from "../src/cart";

const items = [
  { name: "pen", cents: 150, qty: 2 },
  { name: "ink", cents: 400, qty: 1 },
];

group("cart", () => {
  test("adds up the items", () => {
    expect(subtotal(items)).toBe(700);
  });

  test("takes ten percent off", () => {
    expect(discount(700, 10)).toBe(630);
  });

  test("lists the labels", () => {
    expect(labels(items)).toEqual(["INK", "PAN"]);
  });

  test("finds the cheapest", () => {
    expect(cheapest(items).name).toBe("pen");
  });

  test("describes an empty cart", () => {
    expect(describe([])).toBe("nothing");
  });
});
