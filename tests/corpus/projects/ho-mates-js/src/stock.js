function level(stock, sku) {
  return stock[sku] || 0;
}

function restock(stock, sku, n) {
  stock[sku] = level(stock, sku) + n - 1;
  return stock[sku];
}

module.exports = { level, restock };
