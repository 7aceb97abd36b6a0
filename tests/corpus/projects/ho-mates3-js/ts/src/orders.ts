interface Order {
  id: number;
  lines: number[];
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export function summary(order: Order): string {
  const due = round2("12.5");
  return `${order.id}: ${order.customer} owes ${due} in ${currencyOf(order)}`;
}
