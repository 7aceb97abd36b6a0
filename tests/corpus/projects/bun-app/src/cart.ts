export interface Item {
  name: string;
  cents: number;
  qty: number;
}

export function subtotal(items: Item[]): number {
  return items.reduce((sum, it) => sum + it.cents * it.qty, 0);
}

export function discount(total: number, percent: number): number {
  // planted: the percentage is taken as a fraction
  return total - total * percent;
}

export function labels(items: Item[]): string[] {
  return items.map((it) => it.name.toUpperCase()).sort();
}

export function cheapest(items: Item[]): Item {
  return items.slice().sort((a, b) => a.cents - b.cents)[0];
}

export function describe(items: Item[]): string {
  const first = cheapest(items);
  // planted: an empty cart has no cheapest item
  return `${first.name} from ${first.cents}`;
}
