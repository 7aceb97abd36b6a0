import test from "ava";
import { withTax } from "../src/price.js";

test("no tax", (t) => {
  t.is(withTax(100, 1), 100);
});
