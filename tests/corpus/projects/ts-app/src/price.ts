export function parsePrice(input: string): number {
  const total: number = input;
  return total;
}

export function formatPrice(value: number): string {
  return value.toFixed(2);
}
