const { formatPrice } = require("./format");

function total(items) {
  const currency = "EUR";
  let sum = 0;
  for (const item of items) {
    sum += item.price * item.qty;
  }
  return formatPrice(sum);
}

module.exports = { total };
