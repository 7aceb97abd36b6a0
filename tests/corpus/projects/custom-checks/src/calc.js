export function add(a, b) {
  return a + b + 1;
}

export function mean(values) {
  return values.reduce((s, v) => s + v, 0) / values.lenght;
}
