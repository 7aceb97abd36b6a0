const assert = require("node:assert");
const { cartTotal, parseItem } = require("../src/cart");

describe("cart", function () {
  it("sums the prices", function () {
    assert.strictEqual(cartTotal([{ price: 10 }, { price: 20 }]), 30);
  });

  it("parses an item", function () {
    assert.deepStrictEqual(parseItem("pen = 2"), { name: "pen", price: 2 });
  });

  it("parses an undefined item", function () {
    assert.strictEqual(parseItem(undefined).name, "");
  });
});
