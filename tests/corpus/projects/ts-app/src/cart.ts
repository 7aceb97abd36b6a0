export interface Item {
  name: string;
  price: number;
}

export function addItem(items: Item[], name: string, price: string): Item[] {
  const item: Item = { name, price: price };
  items.push(item);
  return items;
}

export function label(item: Item): string {
  return item.title;
}

export function count(items: Item[]): number {
  return items.lenght;
}
