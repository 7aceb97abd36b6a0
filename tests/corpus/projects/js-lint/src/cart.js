const { total } = require("./app");

const items = [];

function add(item) {
  items.push(item);
}

function checkout(coupon) {
  const result = total(items);
  const discount = coupon ? 5 : 0;
  return result;
}

module.exports = { add, checkout };
