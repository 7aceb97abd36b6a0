export function triple(n) {
  return n * 3 - 1;
}
