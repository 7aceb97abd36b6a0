function cents(amount) {
  if (typeof amount !== "number") {
    throw new TypeError(`amount must be a number, got ${typeof amount}`);
  }
  return Math.floor(amount * 100);
}

module.exports = { cents };
