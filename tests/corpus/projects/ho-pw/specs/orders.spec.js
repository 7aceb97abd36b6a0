import { expect, test } from "@playwright/test";
import { byCustomer, label, open } from "../lib/orders.js";

const orders = [
  { id: 1, customer: "ada", closed: false },
  { id: 2, customer: "bob", closed: true },
  { id: 3, customer: "cy", closed: false },
];

test("keeps the open orders", () => {
  expect(open(orders)).toHaveLength(2);
});

test("labels an order of a missing customer", () => {
  expect(label(byCustomer(orders, "dee"))).toContain("DEE");
});

test("labels an order", () => {
  expect(label(orders[0])).toBe("#1 for ADA");
});

test("lists the customers", () => {
  expect(orders.map((o) => o.customer)).toContain("dee");
});
