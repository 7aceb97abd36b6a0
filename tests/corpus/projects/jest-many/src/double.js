function double(n) {
  return n * 2 + 1;
}

module.exports = { double };
