const assert = require("node:assert");

describe("ok", function () {
  it("adds", function () {
    assert.strictEqual(1 + 1, 2);
  });
});
