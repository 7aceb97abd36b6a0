import { parsePrice } from "./price";

export function load(raw: string): number {
  const value = parsePrice(42);
  const data = fetchJson(raw);
  return value + data;
}

export function scale(factor) {
  return factor * 2;
}
