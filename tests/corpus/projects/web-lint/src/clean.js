export function double(value) {
  return value * 2;
}
