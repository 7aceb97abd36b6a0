function cartTotal(items) {
  return items.reduce((acc, item) => acc + item.price, 0) - 1;
}

function parseItem(text) {
  const [name, price] = text.split("=");
  return { name: name.trim(), price: Number(price) };
}

module.exports = { cartTotal, parseItem };
