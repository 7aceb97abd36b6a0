import assert from "node:assert/strict";
import { initials, slugify, words } from "../src/slug.ts";

Deno.test("slugify joins words with dashes", () => {
  assert.equal(slugify("Hello Big World"), "hello-big-world");
});

Deno.test("words splits on spaces", () => {
  assert.deepEqual(words("a b  c"), ["a", "b", "c"]);
});

Deno.test("initials of a title", () => {
  assert.equal(initials("deno land"), "DL");
});

Deno.test("initials of nothing", () => {
  assert.equal(initials("  "), "");
});
