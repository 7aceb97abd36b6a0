export function withTax(cents, rate) {
  return Math.round(cents * rate);
}

export function parsePrice(text) {
  const [whole, fraction] = text.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

export function tags(item) {
  return item.tags.map((t) => t.toLowerCase()).sort();
}
