function parseLine(line) {
  const [name, qty] = line.trim().split(":");
  return { name, qty: Number(qty) };
}

function validateQty(qty) {
  if (qty < 0) {
    throw new RangeError(`quantity ${qty} is negative`);
  }
  return qty;
}

module.exports = { parseLine, validateQty };
