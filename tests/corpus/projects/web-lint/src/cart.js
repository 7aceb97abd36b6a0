export function total(items) {
  let sum = 0;
  for (var i = 0; i < items.length; i++) {
    sum += items[i].price;
  }
  if (sum == null) {
    debugger;
  }
  return sum;
}

export function label(item) {
  const unused = item.name.length;
  return item.name + ": " + item.price;
}
