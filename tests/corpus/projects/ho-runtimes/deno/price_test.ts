import assert from "node:assert/strict";
import { parseLine, totals } from "./price.ts";

Deno.test("totals add up lines of one sku", () => {
  const lines = [parseLine("a,100"), parseLine("a,50")];
  assert.deepEqual(totals(lines), { a: 150 });
});

Deno.test("a line without a sku is refused politely", () => {
  assert.equal(parseLine(",5").cents, 0);
});

Deno.test("a line is parsed", () => {
  assert.equal(parseLine("b,7").cents, 7);
});
