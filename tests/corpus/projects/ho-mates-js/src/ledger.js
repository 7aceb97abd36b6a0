const path = require("path");

function balance(entries) {
  let sum = 0;
  for (const e of entries) {
    sum += e.amount;
  }
  return sum;
}

function describe(entry) {
  return `${entry.label}: ${entry.amount}`;
}

module.exports = { balance };
