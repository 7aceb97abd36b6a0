import assert from "node:assert/strict";
import { wordCount } from "../src/report.ts";

Deno.test("counts the words of two lines", () => {
  assert.equal(wordCount("one two\nthree"), 4);
});
