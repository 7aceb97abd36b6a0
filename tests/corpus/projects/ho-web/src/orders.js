export function total(orders) {
  let sum = 0;
  orders.forEach((o) => {
    sum += o.amount;
  });
  return sum;
}

export function find(orders, id) {
  for (const o of orders) {
    if (o.id === id) return o;
  }
  return undefined;
}

export function isEmpty(list) {
  return list.length == 0;
}

export function parse(text) {
  try {
    return JSON.parse(text);
  } catch (e) {}
}
