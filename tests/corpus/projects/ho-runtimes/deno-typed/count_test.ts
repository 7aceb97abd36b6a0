import assert from "node:assert/strict";

function count(items: string[]): number {
  return items.length;
}

Deno.test("counts", () => {
  const n: string = count(["a", "b"]);
  assert.equal(n, 2);
});
