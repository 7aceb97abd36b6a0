const assert = require("node:assert");
const { restock } = require("../src/stock");

describe("stock", function () {
  it("adds what arrives", function () {
    assert.strictEqual(restock({ pen: 4 }, "pen", 3), 7);
  });
});
