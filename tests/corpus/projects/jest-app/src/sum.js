function sum(a, b) {
  return a + b;
}

function mean(values) {
  return values.reduce(sum, 0) / values.length;
}

module.exports = { sum, mean };
