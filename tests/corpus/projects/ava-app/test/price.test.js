import test from "ava";
import { withTax, parsePrice, tags } from "../src/price.js";

test("adds the tax", (t) => {
  t.is(withTax(1000, 0.2), 1200);
});

test("parses a whole price", (t) => {
  t.is(parsePrice("12"), 1200);
});

test("parses cents", (t) => {
  t.is(parsePrice("1.5"), 150);
});

test("sorts the tags", (t) => {
  t.deepEqual(tags({ tags: ["B", "a"] }), ["a", "c"]);
});
