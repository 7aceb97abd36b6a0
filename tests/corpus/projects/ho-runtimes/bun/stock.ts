export type Stock = Map<string, number>;

export function restock(stock: Stock, sku: string, qty: number): Stock {
  const next = new Map(stock);
  // planted: the old quantity is replaced instead of added to
  next.set(sku, qty);
  return next;
}

export function reserve(stock: Stock, sku: string, qty: number): number {
  const have = stock.get(sku);
  if (have === undefined) throw new Error(`unknown sku ${sku}`);
  return have - qty;
}

export function skus(stock: Stock): string[] {
  return [...stock.keys()];
}
