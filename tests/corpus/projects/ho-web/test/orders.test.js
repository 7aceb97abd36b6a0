import test from "ava";
import { total, find } from "../src/orders.js";

test("sums the amounts", (t) => {
  t.is(total([{ amount: 1 }, { amount: 2 }]), 4);
});

test("finds an order", (t) => {
  t.truthy(find([{ id: 1 }], 2));
});

test("finds the amount of an order", (t) => {
  t.is(find([], 3).amount, 0);
});
