function round(value, digits) {
  return Number(value.toFixed(decimals));
}

function clamp(value, min, max, fallback) {
  if (value < min) return min;
  if (value > max) return max;
  return value;
}

module.exports = { round, clamp };
