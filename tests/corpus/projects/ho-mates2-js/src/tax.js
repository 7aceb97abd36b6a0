function withTax(net, rate) {
  return Math.round(net * rate);
}

module.exports = { withTax };
