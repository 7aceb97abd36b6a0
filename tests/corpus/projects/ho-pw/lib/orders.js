export function open(orders) {
  // planted: the filter keeps the closed orders
  return orders.filter((o) => o.closed);
}

export function byCustomer(orders, name) {
  return orders.find((o) => o.customer === name);
}

export function label(order) {
  return `#${order.id} for ${order.customer.toUpperCase()}`;
}
